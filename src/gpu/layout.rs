//! Where the table lives on the device: blocks of 32 entries, windows of blocks, and the
//! dispatches that cover them.
//!
//! A block is three `u32` words: entries 0..15, entries 16..31 (two bits each, the same bit order
//! as the CPU table, so a block's first two words are the CPU table's 64-bit word of the same
//! index) and the block's `seen` bits; or, where a device holds too little for those, the two
//! table words alone (2 bits an entry: the passes then read the frontier from the table's values,
//! as the CPU's lean strategy does). A window holds `2^window_shift` blocks and is one storage
//! binding; the shader finds an entry's window with a shift, never a division.

use crate::setting::Setting;
use crate::units::bytes;
use std::ops::Range;

/// Entries per block.
pub const BLOCK_ENTRIES: u64 = 32;
/// Bytes a block takes at most: two table words and its `seen` word.
pub const MOST_BLOCK_BYTES: u64 = 12;
/// Blocks read back from the device at a time, into each of two staging buffers (192 MiB).
pub const READBACK_BLOCKS: u64 = 1 << 24;
/// Blocks a slab from disk swept on the GPU sends or reads back at a time (2M entries: the
/// staging takes 1 MiB of host memory at 2 bits an entry, within the plan's fixed room). Slabs
/// held in host memory move [`READBACK_BLOCKS`] at a time: a piece of 2M entries costs a wait on
/// the device, and a slab of 3.4e10 entries took 13 s a pass in such pieces on an H100's host.
pub const SLAB_READBACK_BLOCKS: u64 = 1 << 16;
/// The most ranks a frontier list on the device holds (128 MiB a list).
pub const MAX_LIST: u64 = 1 << 24;
/// The largest storage binding planned for where no device is present: wgpu's ceiling.
pub const ASSUMED_BINDING_BYTES: u64 = (1 << 32) - 4;
/// Invocations per workgroup (`@workgroup_size(64)` in `shaders/bfs.wgsl`), one block each.
pub const WORKGROUP: u64 = 64;

/// The host memory the GPU engine's read-back takes for a table of `table` bytes, planned
/// before any device is opened: two staging buffers of at most [`READBACK_BLOCKS`] blocks (at
/// most [`MOST_BLOCK_BYTES`] bytes per 32 entries).
pub fn host_staging_bytes(table: u64) -> u64 {
    2 * (READBACK_BLOCKS * MOST_BLOCK_BYTES).min(table / 8 * 12 + MOST_BLOCK_BYTES)
}

/// The host memory a GPU sweeping slabs held in host memory takes: two staging buffers, and a
/// piece's table words and device words on their way up (2 bits an entry on the device: 8
/// bytes a block), [`READBACK_BLOCKS`] at a time.
pub const SWEEP_PIECE_BYTES: u64 = READBACK_BLOCKS * 4 * 8;

/// The table's blocks cut into windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Table entries.
    pub entries: u64,
    /// Blocks in all.
    pub blocks: u64,
    /// Every window but the last holds `1 << window_shift` blocks.
    pub window_shift: u32,
    /// Number of windows.
    pub windows: u32,
    /// Ranks each of the device's three frontier lists holds: the level loop's largest list, at
    /// most [`MAX_LIST`], and no more than a binding of a window's size holds (a longer level is
    /// found by a scan instead).
    pub list_capacity: u64,
    /// Bytes of the puzzle's own tables on the device (a twisty puzzle's move tables).
    pub puzzle_bytes: u64,
    /// Whether each block keeps its `seen` word (3 bits an entry), or not (2 bits).
    pub seen: bool,
    /// Blocks read back (or sent) at a time, into each of two staging buffers.
    pub readback_blocks: u64,
}

/// One dispatch: a run of blocks inside one window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dispatch {
    /// The window.
    pub window: u32,
    /// First block, counted inside the window.
    pub first_block: u32,
    /// Blocks covered.
    pub blocks: u32,
}

impl Layout {
    /// The layout of `entries` entries in windows of at most `max_window_bytes` bytes, 3 bits
    /// an entry, or why none exists.
    pub fn plan(entries: u64, max_window_bytes: u64) -> Result<Layout, String> {
        Self::plan_bits(entries, max_window_bytes, true)
    }

    /// The layout of a slab swept on the device ([`crate::gpu::engine::GpuSweeper`]): 2 bits an entry
    /// (the slab holds every level up to the one it expands, so that level's value tells its
    /// states: older levels of the same value find nothing new), in windows of at most
    /// `max_window_bytes`, moving `readback_blocks` blocks to and from the device at a time.
    pub fn slab(
        entries: u64,
        max_window_bytes: u64,
        readback_blocks: u64,
    ) -> Result<Layout, String> {
        Ok(Layout {
            puzzle_bytes: 0,
            readback_blocks,
            ..Self::plan_bits(entries, max_window_bytes, false)?
        })
    }

    /// [`Layout::plan`] with `seen` words in the blocks (3 bits an entry) or without (2 bits).
    fn plan_bits(entries: u64, max_window_bytes: u64, seen: bool) -> Result<Layout, String> {
        let blocks = entries.div_ceil(BLOCK_ENTRIES).max(1);
        let block_bytes = if seen { MOST_BLOCK_BYTES } else { 8 };
        let fit = max_window_bytes / block_bytes;
        if fit < WORKGROUP {
            return Err(format!(
                "a GPU window of {max_window_bytes} bytes is too small: it must hold at least {} bytes",
                WORKGROUP * block_bytes
            ));
        }
        // The largest power of two that fits, but no larger than the table needs; at most 2^30
        // blocks so that word indices (three per block) inside a window stay below 2^32.
        let most = 1u64 << (63 - fit.leading_zeros()).min(30);
        let window_blocks = most.min(blocks.next_power_of_two());
        let window_shift = window_blocks.trailing_zeros();
        let windows = blocks.div_ceil(window_blocks);
        let list_limit = crate::search::list_limit(entries, 0, crate::search::Footprint::Full);
        Ok(Layout {
            entries,
            blocks,
            list_capacity: list_limit.min(MAX_LIST).min((max_window_bytes - 4) / 24),
            puzzle_bytes: 0,
            seen,
            readback_blocks: READBACK_BLOCKS,
            window_shift,
            windows: u32::try_from(windows).map_err(|_| {
                format!("the table would need {windows} GPU windows: use larger windows")
            })?,
        })
    }

    /// This layout with 2 bits an entry where a GPU of `memory` bytes does not hold it with 3
    /// but holds it with 2 (windows of at most `max_window_bytes`), else as it is.
    pub fn fit(self, memory: Option<u64>, max_window_bytes: u64) -> Layout {
        let Some(memory) = memory.filter(|&m| self.seen && self.device_bytes() > m) else {
            return self;
        };
        match Self::plan_bits(self.entries, max_window_bytes, false) {
            Ok(lean) => {
                let lean = Layout {
                    puzzle_bytes: self.puzzle_bytes,
                    ..lean
                };
                if lean.device_bytes() <= memory {
                    lean
                } else {
                    self
                }
            }
            Err(_) => self,
        }
    }

    /// Bytes a block takes: 12 with its `seen` word, 8 without.
    pub fn block_bytes(&self) -> u64 {
        if self.seen { MOST_BLOCK_BYTES } else { 8 }
    }

    /// Blocks in window `w`.
    pub fn window_blocks(&self, w: u32) -> u64 {
        let full = 1u64 << self.window_shift;
        (self.blocks - u64::from(w) * full).min(full)
    }

    /// Bytes of window `w`.
    pub fn window_bytes(&self, w: u32) -> u64 {
        self.window_blocks(w) * self.block_bytes()
    }

    /// Where entry `rank` lives: its window, the byte offset of its `u32` word in the window,
    /// and the bit shift of its two bits in that word (as `locate` in `shaders/bfs.wgsl`).
    pub fn locate(&self, rank: u64) -> (u32, u64, u32) {
        let block = rank / BLOCK_ENTRIES;
        let local = block & ((1 << self.window_shift) - 1);
        let entry = rank % BLOCK_ENTRIES;
        (
            (block >> self.window_shift) as u32,
            (local * self.block_bytes() / 4 + entry / 16) * 4,
            2 * (entry % 16) as u32,
        )
    }

    /// Bytes on the device in all.
    pub fn bytes(&self) -> u64 {
        self.blocks * self.block_bytes()
    }

    /// Bytes of the frontier lists: three lists of 8-byte ranks and the next one's length.
    pub fn list_bytes(&self) -> u64 {
        4 + 3 * 8 * self.list_capacity
    }

    /// Bytes on the device: the table, the frontier lists and the puzzle's tables.
    pub fn device_bytes(&self) -> u64 {
        self.bytes() + self.list_bytes() + self.puzzle_bytes
    }

    /// Bytes of each of the two read-back staging buffers (mapped host memory).
    pub fn staging_bytes(&self) -> u64 {
        self.readback_blocks.min(self.window_blocks(0)) * self.block_bytes()
    }

    /// Why a GPU of `memory` bytes (the figure from `source`) cannot hold the table, if it
    /// cannot.
    pub fn memory_refusal(&self, memory: u64, source: &str) -> Option<String> {
        (self.device_bytes() > memory).then(|| {
            // With seen bits, what 2 bits an entry would need (the table's third less).
            let two_bits = match self.seen {
                true => format!("; with 2 bits an entry {}", bytes(self.device_bytes() - self.blocks * 4)),
                false => String::new(),
            };
            format!(
                "the table of {} entries needs {} of GPU memory ({} bits an entry, the frontier lists and the puzzle's tables{two_bits}), but {source} gives {}: choose a smaller puzzle or {}",
                self.entries,
                bytes(self.device_bytes()),
                if self.seen { 3 } else { 2 },
                bytes(memory),
                Setting::Backend.to("cpu")
            )
        })
    }

    /// The device part of a plan, as `--dry-run` prints it: the table on the device and its
    /// windows, the read-back's staging, and whether a GPU of `memory` bytes (the figure and
    /// where it comes from) holds them.
    pub fn describe(&self, memory: Option<(u64, &str)>) -> String {
        let mut out = format!("device plan: {} entries\n", self.entries);
        out += &format!(
            "  {:<32} {} in {} window{} of up to {}\n",
            if self.seen {
                "table and seen bits (3 bits)"
            } else {
                "table (2 bits, no seen bits)"
            },
            bytes(self.bytes()),
            self.windows,
            if self.windows == 1 { "" } else { "s" },
            bytes(self.window_bytes(0))
        );
        out += &format!(
            "  {:<32} {} (3 x {} ranks)\n",
            "frontier lists",
            bytes(self.list_bytes()),
            self.list_capacity
        );
        if self.puzzle_bytes > 0 {
            out += &format!("  {:<32} {}\n", "puzzle tables", bytes(self.puzzle_bytes));
        }
        out += &format!(
            "  {:<32} {} (2 x {}, host memory)\n",
            "read-back staging",
            bytes(2 * self.staging_bytes()),
            bytes(self.staging_bytes())
        );
        match memory {
            Some((memory, source)) => match self.memory_refusal(memory, source) {
                None => {
                    out += &format!(
                        "  {:<32} {} ({source}): fits, {} to spare\n",
                        "GPU memory",
                        bytes(memory),
                        bytes(memory - self.device_bytes())
                    )
                }
                Some(why) => out += &format!("  refused: {why}\n"),
            },
            None => out += &format!("  GPU memory unknown (give {})\n", Setting::GpuMemory),
        }
        out
    }

    /// The dispatches that cover every block once, in rank order, each at most
    /// `max_workgroups` workgroups.
    pub fn dispatches(&self, max_workgroups: u32) -> Vec<Dispatch> {
        self.dispatches_over(std::slice::from_ref(&(0..self.blocks)), max_workgroups)
    }

    /// The dispatches that cover the blocks of `ranges` (ascending, disjoint; global block
    /// indices) once, each inside one window and at most `max_workgroups` workgroups.
    pub fn dispatches_over(&self, ranges: &[Range<u64>], max_workgroups: u32) -> Vec<Dispatch> {
        let per_dispatch = u64::from(max_workgroups) * WORKGROUP;
        let mut out = Vec::new();
        for range in ranges {
            let mut block = range.start;
            while block < range.end.min(self.blocks) {
                let window = (block >> self.window_shift) as u32;
                let first = block & ((1 << self.window_shift) - 1);
                let count = per_dispatch
                    .min(self.window_blocks(window) - first)
                    .min(range.end - block);
                out.push(Dispatch {
                    window,
                    first_block: first as u32,
                    blocks: count as u32,
                });
                block += count;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tables_get_one_window_of_their_own_size() {
        let layout = Layout::plan(3_628_800, 128 << 20).unwrap();
        assert_eq!(layout.blocks, 113_400);
        assert_eq!(layout.windows, 1);
        assert_eq!(layout.window_shift, 17);
        assert_eq!(layout.window_bytes(0), 113_400 * 12);
    }

    #[test]
    fn windows_are_powers_of_two_that_fit() {
        let layout = Layout::plan(3_628_800, 96 << 10).unwrap();
        assert_eq!(layout.window_shift, 13);
        // The frontier lists fit a binding of a window's size: (96 KiB - 4) / 24 ranks, not the
        // 7,087 the level loop lists at most.
        assert_eq!(layout.list_capacity, 4095);
        assert!(layout.list_bytes() <= 96 << 10);
        assert_eq!(layout.windows, 14);
        assert!(layout.window_bytes(0) <= 96 << 10);
        let total: u64 = (0..layout.windows).map(|w| layout.window_blocks(w)).sum();
        assert_eq!(total, layout.blocks);
        // 14! entries in windows of 2 GiB: ranks beyond 2^32, windows below it.
        let big = Layout::plan(87_178_291_200, 2 << 30).unwrap();
        assert_eq!(big.window_shift, 27);
        assert_eq!(big.windows, 21);
    }

    #[test]
    fn locate_finds_window_word_and_bits() {
        let layout = Layout::plan(3_628_800, 96 << 10).unwrap();
        assert_eq!(layout.locate(0), (0, 0, 0));
        assert_eq!(layout.locate(17), (0, 4, 2));
        assert_eq!(layout.locate(32 * 8192 + 33), (1, 12, 2));
    }

    #[test]
    fn dispatches_cover_each_block_once() {
        let layout = Layout::plan(1_000_003, 64 << 10).unwrap();
        let dispatches = layout.dispatches(3);
        let mut next = (0, 0);
        for d in &dispatches {
            if d.window != next.0 {
                assert_eq!(u64::from(next.1), layout.window_blocks(next.0));
                next = (d.window, 0);
            }
            assert_eq!(d.first_block, next.1);
            assert!(u64::from(d.blocks) <= 3 * WORKGROUP);
            next.1 += d.blocks;
        }
        assert_eq!(next.0, layout.windows - 1);
        assert_eq!(u64::from(next.1), layout.window_blocks(next.0));
    }

    #[test]
    fn dispatches_over_ranges_stay_inside_windows() {
        // Windows of 8,192 blocks; ranges across a window's end, and past the table's.
        let layout = Layout::plan(3_628_800, 96 << 10).unwrap();
        let dispatches = layout.dispatches_over(&[100..200, 8000..8300, 113_000..200_000], 1);
        let covered: Vec<(u32, u32, u32)> = dispatches
            .iter()
            .map(|d| (d.window, d.first_block, d.blocks))
            .collect();
        assert_eq!(covered[0], (0, 100, 64));
        assert_eq!(covered[1], (0, 164, 36));
        assert!(covered.contains(&(0, 8128, 64)));
        assert!(covered.contains(&(1, 0, 64)));
        let total: u64 = dispatches.iter().map(|d| u64::from(d.blocks)).sum();
        assert_eq!(total, 100 + 300 + (layout.blocks - 113_000));
        assert!(
            dispatches
                .iter()
                .all(|d| u64::from(d.first_block + d.blocks) <= layout.window_blocks(d.window))
        );
    }

    #[test]
    fn tables_too_large_for_3_bits_an_entry_take_2() {
        let n14 = 87_178_291_200;
        let three = Layout::plan(n14, 4 << 30).unwrap();
        assert!(three.seen);
        // An 80 GB GPU holds 3 bits an entry; a 24 GB one 2 (20.3 GiB); 16 GB neither.
        assert_eq!(three.fit(Some(80_000_000_000), 4 << 30), three);
        let two = three.fit(Some(24_000_000_000), 4 << 30);
        assert!(!two.seen);
        assert_eq!(two.bytes(), n14 / 4);
        assert_eq!(two.block_bytes(), 8);
        assert_eq!(two.locate(32 + 17), (0, 12, 2));
        assert!(two.memory_refusal(24_000_000_000, "a GPU").is_none());
        assert_eq!(three.fit(Some(16_000_000_000), 4 << 30), three);
        let why = three.memory_refusal(16_000_000_000, "a GPU").unwrap();
        assert!(why.contains("with 2 bits an entry 20.7 GiB"), "{why}");
        // Unknown memory: 3 bits.
        assert_eq!(three.fit(None, 4 << 30), three);
    }

    #[test]
    fn tiny_windows_are_refused() {
        assert!(Layout::plan(1000, 100).is_err());
    }
}
