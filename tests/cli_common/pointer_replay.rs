//! Pointer events replayed onto a [`SimulatedFur`] as a library user's window would send
//! them, and coats compared strand by strand.

use glam::{Vec2, Vec4};
use pelt::SimulatedFur;
use pelt::hand::{PointerEvent, PointerEventKind};
use pelt::render::Camera;

/// Sends `event` to `fur`, its position turned into a ray through `camera` for a window of
/// `window` pixels.
pub fn replay_event(fur: &mut SimulatedFur, camera: &Camera, window: Vec2, event: &PointerEvent) {
    let ray = |p: Vec2| camera.ray_through(p, window);
    match event.kind {
        PointerEventKind::Down { position, button } => {
            fur.pointer_down(ray(position), position, button)
        }
        PointerEventKind::Move { position } => fur.pointer_move(ray(position), position),
        PointerEventKind::Up { position, button } => {
            fur.pointer_up(ray(position), position, button)
        }
        PointerEventKind::Cancel => fur.pointer_cancel(),
        PointerEventKind::Leave => fur.pointer_leave(),
    }
}

/// How many of `strands` (indices) differ in any bit between two coats' positions (six
/// points a strand).
pub fn strands_differing(
    a: &[Vec4],
    b: &[Vec4],
    strands: impl IntoIterator<Item = usize>,
) -> usize {
    strands
        .into_iter()
        .filter(|&s| a[s * 6..s * 6 + 6] != b[s * 6..s * 6 + 6])
        .count()
}
