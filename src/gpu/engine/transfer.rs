//! The table between the device and the host: read back in chunks (for checkpoints and the
//! distances file), uploaded to go on from a checkpoint.

use super::*;

impl GpuEngine<'_> {
    /// Submits a copy of `count` blocks of window `w` from block `first` into `to`.
    pub(super) fn copy_out(&self, (w, first, count): (u32, u64, u64), to: &wgpu::Buffer) {
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        let block_bytes = self.layout.block_bytes();
        encoder.copy_buffer_to_buffer(
            &self.windows[w as usize],
            first * block_bytes,
            to,
            0,
            count * block_bytes,
        );
        self.gpu.queue.submit([encoder.finish()]);
    }

    /// The table's chunks on the device: (window, first block, blocks), in rank order.
    pub(super) fn chunks(&self) -> Vec<(u32, u64, u64)> {
        let (layout, piece) = (&self.layout, self.layout.readback_blocks);
        (0..layout.windows)
            .flat_map(|w| {
                let blocks = layout.window_blocks(w);
                (0..blocks)
                    .step_by(piece as usize)
                    .map(move |first| (w, first, piece.min(blocks - first)))
            })
            .collect()
    }

    /// The table, read back chunk by chunk into a host copy if `keep`, and with `last =
    /// Some((value, limit))` the smallest `limit` ranks of the last level (the entries holding
    /// `value` that are not yet seen; with 2 bits an entry, the entries holding `value`).
    pub(super) fn read_back(
        &self,
        last: Option<(u8, usize)>,
        keep: bool,
    ) -> Result<(Option<DistanceTable>, Vec<u64>), String> {
        let started = std::time::Instant::now();
        let table = keep.then(|| DistanceTable::new(self.layout.entries));
        let mut smallest = Vec::new();
        let block_words = (self.layout.block_bytes() / 4) as usize;
        self.read_chunks(|block, words| {
            let want = last.map(|(value, limit)| (value, limit - smallest.len()));
            smallest.extend(store_blocks(
                table.as_ref(),
                block,
                words,
                block_words,
                want,
            ));
        })?;
        if self.profile {
            eprintln!(
                "profile: read-back {:.3} s",
                started.elapsed().as_secs_f64()
            );
        }
        Ok((table, smallest))
    }

    /// Reads the table back chunk by chunk, the next chunk's copy running while `take` takes in
    /// the last: `take(first block, the blocks' words)`.
    pub(super) fn read_chunks(&self, mut take: impl FnMut(usize, &[u32])) -> Result<(), String> {
        let staging = [0, 1].map(|_| {
            read_back_buffer(
                &self.gpu.device,
                "table read-back",
                self.layout.staging_bytes(),
            )
        });
        let chunks = self.chunks();
        self.copy_out(chunks[0], &staging[0]);
        let mut block = 0usize;
        for (i, &(_, _, count)) in chunks.iter().enumerate() {
            map_read(&self.gpu.device, &staging[i % 2], |bytes| {
                if let Some(&next) = chunks.get(i + 1) {
                    self.copy_out(next, &staging[(i + 1) % 2]);
                }
                let bytes = &bytes[..(count * self.layout.block_bytes()) as usize];
                take(block, bytemuck::cast_slice(bytes));
            })?;
            block += count as usize;
        }
        Ok(())
    }

    /// Puts a table on the device to go on from, read piece by piece: each block's words, and
    /// (where blocks have seen words) as seen every reached entry but the last level's:
    /// those of `list` (ascending) where the level is listed, else those holding `last`, its
    /// value (the next pass then expands that level, and levels `last - 3`, ... once more,
    /// finding nothing there; list passes, which mark no entries seen but their lists', need the
    /// exact level).
    pub(super) fn upload(
        &self,
        table: &dyn TableView,
        last: u8,
        list: Option<&[u64]>,
    ) -> Result<(), String> {
        self.put(table, |block, word| match list {
            // The listed ranks in this block (ascending: found by halving).
            Some(list) => {
                let at = block * BLOCK_ENTRIES;
                let from = list.partition_point(|&r| r < at);
                let to = from + list[from..].partition_point(|&r| r < at + BLOCK_ENTRIES);
                list[from..to]
                    .iter()
                    .fold(0, |bits, &rank| bits | 1 << (rank - at))
            }
            None => squeeze(matches(word, last)),
        })
        .map(|_| ())
    }

    /// Puts `table` on the device piece by piece, each block's entries that `level(block,
    /// word)` names (one bit each) left unseen among the reached ones; each piece's words made
    /// on every worker. Returns how many entries hold each value (3: unreached).
    pub(super) fn put(
        &self,
        table: &dyn TableView,
        level: impl Fn(u64, u64) -> u32 + Sync,
    ) -> Result<[u64; 4], String> {
        let block_words = (self.layout.block_bytes() / 4) as usize;
        let entries = self.layout.entries;
        let mut counts = [0; 4];
        for (w, first, count) in self.chunks() {
            let block = ((w as u64) << self.layout.window_shift) + first;
            let mut bytes = Vec::with_capacity(count as usize * 8);
            table.append_le_bytes(block as usize..(block + count) as usize, &mut bytes)?;
            let mut words = vec![0u32; count as usize * block_words];
            let piece = (words.par_chunks_mut(block_words))
                .zip(bytes.par_chunks_exact(8))
                .enumerate()
                .map(|(i, (out, b))| {
                    let word = u64::from_le_bytes(b.try_into().expect("8 bytes"));
                    out[0] = word as u32;
                    out[1] = (word >> 32) as u32;
                    let open = squeeze(matches(word, UNREACHED));
                    if let Some(seen) = out.get_mut(2) {
                        *seen = !open & !level(block + i as u64, word);
                    }
                    // The entries past the table's end (its last block's) are not counted.
                    let live = entries.saturating_sub((block + i as u64) * BLOCK_ENTRIES);
                    let past = (BLOCK_ENTRIES - live.min(BLOCK_ENTRIES)) as u32;
                    let valid = u32::MAX.checked_shr(past).unwrap_or(0);
                    [0, 1, 2, UNREACHED]
                        .map(|v| u64::from((squeeze(matches(word, v)) & valid).count_ones()))
                })
                .reduce(|| [0; 4], |a, b| [0, 1, 2, 3].map(|v| a[v] + b[v]));
            counts = [0, 1, 2, 3].map(|v| counts[v] + piece[v]);
            self.gpu.queue.write_buffer(
                &self.windows[w as usize],
                first * self.layout.block_bytes(),
                bytemuck::cast_slice(&words),
            );
            // One piece in flight at a time: the queue holds its bytes until it runs.
            self.gpu
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| format!("the GPU stopped: {e}"))?;
        }
        Ok(counts)
    }
}

/// Words [`GpuEngine::values_at`] reads with one copy where they lie at most this many bytes
/// apart: a copy costs far more than the bytes between two words.
const VALUES_GAP: u64 = 4096;

/// Bytes one batch of [`GpuEngine::values_at`]'s copies reads back at most.
const VALUES_BATCH_BYTES: u64 = 64 << 20;

/// A span of a window's bytes copied out: window, first byte, bytes, and where it lies in the
/// staging buffer.
struct Span {
    window: u32,
    first: u64,
    bytes: u64,
    staged: u64,
}

impl GpuEngine<'_> {
    /// The values of the entries `ranks` (ascending, for the fewest copies): the words holding
    /// them copied out in spans of nearby words, a batch at a time (what the level loop weighs a
    /// reduced table's special entries with, after every level).
    pub(super) fn values_at(&self, ranks: &[u64]) -> Result<Vec<u8>, String> {
        let device = &self.gpu.device;
        let located: Vec<(u32, u64, u32)> = ranks.iter().map(|&r| self.layout.locate(r)).collect();
        let mut values = Vec::with_capacity(ranks.len());
        let mut at = 0;
        while at < located.len() {
            let (mut spans, mut places, mut staged) = (Vec::<Span>::new(), Vec::new(), 0u64);
            while let Some(&(window, offset, _)) = located.get(at) {
                // The last span grows to take this word where it is near, else a new one.
                let growth = match spans.last() {
                    Some(s)
                        if s.window == window
                            && (s.first..s.first + s.bytes + VALUES_GAP).contains(&offset) =>
                    {
                        Some((offset + 4).saturating_sub(s.first + s.bytes))
                    }
                    _ => None,
                };
                if staged + growth.unwrap_or(4) > VALUES_BATCH_BYTES && !spans.is_empty() {
                    break;
                }
                match (growth, spans.last_mut()) {
                    (Some(growth), Some(span)) => span.bytes += growth,
                    _ => spans.push(Span {
                        window,
                        first: offset,
                        bytes: 4,
                        staged,
                    }),
                }
                staged += growth.unwrap_or(4);
                let span = spans.last().expect("a span");
                places.push(span.staged + offset - span.first);
                at += 1;
            }
            let staging = read_back_buffer(device, "entries read-back", staged);
            let mut encoder = device.create_command_encoder(&Default::default());
            for span in &spans {
                let window = &self.windows[span.window as usize];
                encoder.copy_buffer_to_buffer(
                    window,
                    span.first,
                    &staging,
                    span.staged,
                    span.bytes,
                );
            }
            self.gpu.queue.submit([encoder.finish()]);
            let shifts = located[at - places.len()..at]
                .iter()
                .map(|&(_, _, shift)| shift);
            map_read(device, &staging, |bytes| {
                for (place, shift) in places.iter().zip(shifts) {
                    let word = &bytes[*place as usize..*place as usize + 4];
                    let word = u32::from_le_bytes(word.try_into().expect("4 bytes"));
                    values.push((word >> shift) as u8 & 3);
                }
            })?;
        }
        Ok(values)
    }
}

/// The table where it lies on the device, read back piece by piece as the writers ask.
pub(super) struct DeviceTable<'e, 'g>(pub(super) &'e GpuEngine<'g>);

impl TableView for DeviceTable<'_, '_> {
    fn entries(&self) -> u64 {
        self.0.layout.entries
    }

    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        // A table word is a block's first two device words; the pieces stay inside a window.
        let (engine, layout) = (self.0, &self.0.layout);
        let mut block = words.start as u64;
        while block < words.end as u64 {
            let window = (block >> layout.window_shift) as u32;
            let first = block & ((1 << layout.window_shift) - 1);
            let count = (words.end as u64 - block).min(layout.window_blocks(window) - first);
            let block_bytes = layout.block_bytes();
            let staging =
                read_back_buffer(&engine.gpu.device, "chunk read-back", count * block_bytes);
            engine.copy_out((window, first, count), &staging);
            map_read(&engine.gpu.device, &staging, |bytes| {
                out.reserve(count as usize * 8);
                for b in bytes.chunks_exact(block_bytes as usize) {
                    out.extend_from_slice(&b[..8]);
                }
            })?;
            block += count;
        }
        Ok(())
    }
}

/// Blocks a worker takes in at a time.
const STORED_BLOCKS: usize = 1 << 14;

/// Stores the blocks of `words` (each `lo, hi, seen`, or `lo, hi` of `block_words` 2) into
/// `table` (if any) from block `first` on, in parallel, and with `want = Some((value, limit))`
/// returns the smallest `limit` ranks among them of entries holding `value` that are not seen.
fn store_blocks(
    table: Option<&DistanceTable>,
    first: usize,
    words: &[u32],
    block_words: usize,
    want: Option<(u8, usize)>,
) -> Vec<u64> {
    let parts: Vec<Vec<u64>> = words
        .par_chunks(block_words * STORED_BLOCKS)
        .enumerate()
        .map(|(part, words)| {
            let mut found = Vec::new();
            for (i, b) in words.chunks_exact(block_words).enumerate() {
                let at = first + part * STORED_BLOCKS + i;
                let word = u64::from(b[0]) | u64::from(b[1]) << 32;
                if let Some(table) = table {
                    table.store_word(at, word);
                }
                if let Some((value, limit)) = want {
                    let seen = b.get(2).map_or(0, |&seen| spread(seen));
                    let mut level = squeeze(matches(word, value) & !seen);
                    while level != 0 && found.len() < limit {
                        found.push(at as u64 * 32 + u64::from(level.trailing_zeros()));
                        level &= level - 1;
                    }
                }
            }
            found
        })
        .collect();
    let limit = want.map_or(0, |(_, limit)| limit);
    parts.into_iter().flatten().take(limit).collect()
}
