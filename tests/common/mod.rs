//! What several test files share: checkpoints kept in memory.

use gpusearch::search::Checkpoints;
use gpusearch::search::levels::Levels;
use gpusearch::table::TableView;
use std::sync::Mutex;

/// A checkpoint kept in memory: the table's words, the levels and the antipodes.
pub type Saved = (Vec<u64>, Levels, Vec<u64>);

/// Checkpoints after every level, all kept.
#[derive(Default)]
pub struct Every(pub Mutex<Vec<Saved>>);

impl Checkpoints for Every {
    fn due(&self) -> bool {
        true
    }

    fn save(
        &self,
        table: &dyn TableView,
        levels: &Levels,
        antipodes: &[u64],
    ) -> Result<(), String> {
        let mut bytes = Vec::new();
        table.append_le_bytes(0..table.entries().div_ceil(32) as usize, &mut bytes)?;
        let words = bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        self.0
            .lock()
            .unwrap()
            .push((words, levels.clone(), antipodes.to_vec()));
        Ok(())
    }
}
