//! `SpringRig`: every chain, collider and collider group of one rigged body, as a file holds
//! them.

use super::{ChainSpec, Collider, ColliderGroup, Frame, SpringError, WorldCollider};

/// The springs of a rigged body: chains, colliders on bones, and the groups chains meet.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpringRig {
    /// The chains.
    pub chains: Vec<ChainSpec>,
    /// The colliders, each on a named bone.
    pub colliders: Vec<Collider>,
    /// Named groups of colliders; chains refer to them by index.
    pub groups: Vec<ColliderGroup>,
}

impl SpringRig {
    /// Checks every chain and collider, and that every index refers to something.
    pub fn validate(&self) -> Result<(), SpringError> {
        for c in &self.chains {
            c.validate()?;
            for &g in &c.collider_groups {
                if g >= self.groups.len() {
                    return Err(SpringError::IndexOutOfRange(
                        format!("chain `{}` collider group", c.name),
                        g,
                        self.groups.len(),
                    ));
                }
            }
        }
        for c in &self.colliders {
            c.shape.validate()?;
        }
        for g in &self.groups {
            for &c in &g.colliders {
                if c >= self.colliders.len() {
                    return Err(SpringError::IndexOutOfRange(
                        format!("collider group `{}`", g.name),
                        c,
                        self.colliders.len(),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The colliders chain `chain` meets, placed in world space with `bone_frame` (which
    /// gives a bone's world frame by name; colliders on unknown bones are skipped).
    pub fn world_colliders_for(
        &self,
        chain: usize,
        bone_frame: impl Fn(&str) -> Option<Frame>,
    ) -> Vec<WorldCollider> {
        let Some(spec) = self.chains.get(chain) else {
            return Vec::new();
        };
        let mut ids: Vec<usize> = spec
            .collider_groups
            .iter()
            .filter_map(|&g| self.groups.get(g))
            .flat_map(|g| g.colliders.iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter()
            .filter_map(|i| self.colliders.get(i))
            .filter_map(|c| bone_frame(&c.bone).map(|f| c.shape.to_world(&f)))
            .collect()
    }
}
