//! The file of a slab's states of the next level found so far (a bitmap of its entries), cut
//! into pieces of [`IO_BYTES`]: each piece in a slot of its own at a fixed offset, a block for
//! its header and then its bytes, as the bitmap's words where the states are many or as the
//! gaps between them ([`gaps`]) where they are few. Through the levels at either end of a
//! search a bitmap is nearly all zeros, and as gaps it takes a fraction of the bytes each pass
//! writes and reads; the end of a slot that its piece does not fill is a hole in the file, with
//! no bytes on the disk.

use super::io::{Aligned, BLOCK, IO_BYTES, Io, create, open, uncache, write_error};
use crate::search::SearchError;
use crate::search::bitmap::Bitmap;
use crate::search::slab::gaps;
use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

/// Bitmap words a piece holds.
const PIECE_WORDS: usize = IO_BYTES / 8;
/// The bytes of a piece's slot: its header's block, then its bytes.
const SLOT: u64 = (BLOCK + IO_BYTES) as u64;
/// A piece kept as the bitmap's words, little-endian.
const WORDS: u64 = 0;
/// A piece kept as the gaps between its states' entries (from the piece's first).
const GAPS: u64 = 1;

/// The length of the file of a bitmap of `words` words.
pub(super) fn file_len(words: usize) -> u64 {
    words.div_ceil(PIECE_WORDS).max(1) as u64 * SLOT
}

/// The most bytes the file of a bitmap of `entries` entries takes on the disk (every piece
/// kept as words): its holes take none.
pub fn disk_bytes(entries: u64) -> u64 {
    let words = entries.div_ceil(64);
    words.div_ceil(PIECE_WORDS as u64) * BLOCK as u64 + (8 * words).next_multiple_of(BLOCK as u64)
}

/// Writes the first `words` words of `bits` to `path` through `buffer` (on the disk, not in the
/// page cache), calling `taken` with the words taken out of `bits` so far as it goes: the bytes
/// written and the seconds it took.
pub(super) fn write_bits(
    path: &Path,
    bits: &Bitmap,
    words: usize,
    buffer: &mut Aligned,
    taken: &dyn Fn(usize),
) -> Result<Io, SearchError> {
    let started = Instant::now();
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let (file, direct) = create(path)?;
    let mut written = 0;
    for (k, first) in (0..words).step_by(PIECE_WORDS).enumerate() {
        let piece = first..(first + PIECE_WORDS).min(words);
        let raw = 8 * piece.len();
        let count: u64 = piece
            .clone()
            .map(|w| u64::from(bits.word(w).count_ones()))
            .sum();
        let slot = buffer.get(BLOCK + IO_BYTES);
        let body = &mut slot[BLOCK..BLOCK + raw];
        // A gap takes a byte at least: gaps only where they may take a quarter of the words.
        let gaps = (count <= raw as u64 / 4)
            .then(|| gaps_into(bits, piece.clone(), &mut body[..raw - 1]))
            .flatten();
        let (kind, len) = match gaps {
            Some(len) => (GAPS, len),
            None => {
                for (w, out) in piece.clone().zip(body.chunks_exact_mut(8)) {
                    out.copy_from_slice(&bits.word(w).to_le_bytes());
                }
                (WORDS, raw)
            }
        };
        taken(piece.end);
        let end = BLOCK + len.next_multiple_of(BLOCK);
        slot[BLOCK + len..end].fill(0);
        slot[..BLOCK].fill(0);
        for (i, v) in [kind, len as u64, count].into_iter().enumerate() {
            slot[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
        }
        let at = k as u64 * SLOT;
        file.write_all_at(&slot[..end], at)
            .map_err(|e| write_error(path, e, file_len(words) - at))?;
        written += end as u64;
    }
    // The slots' holes to the end: the file's length says how many pieces it has.
    file.set_len(file_len(words)).map_err(fail)?;
    file.sync_data()
        .map_err(|e| write_error(path, e, file_len(words)))?;
    if !direct {
        uncache(&file);
    }
    Ok(Io {
        read: 0,
        written,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The gaps between the states of `bits`' words `piece` (the first from the piece's first
/// entry) in `out`: how many bytes they take, `None` where `out` cannot hold them.
fn gaps_into(bits: &Bitmap, piece: std::ops::Range<usize>, out: &mut [u8]) -> Option<usize> {
    let (mut at, mut last) = (0, 0u64);
    for w in piece.clone() {
        let mut word = bits.word(w);
        while word != 0 {
            let entry = 64 * (w - piece.start) as u64 + u64::from(word.trailing_zeros());
            word &= word - 1;
            let mut gap = entry - last;
            last = entry;
            while gap >= 0x80 {
                *out.get_mut(at)? = gap as u8 | 0x80;
                at += 1;
                gap >>= 7;
            }
            *out.get_mut(at)? = gap as u8;
            at += 1;
        }
    }
    Some(at)
}

/// Reads the first `words` words of `bits` from `path`, as [`write_bits`] wrote them, each piece
/// once `wait` returns for the words up to its end: the bytes read and the seconds it took.
pub(super) fn read_bits(
    path: &Path,
    bits: &Bitmap,
    words: usize,
    wait: &dyn Fn(usize),
) -> Result<Io, String> {
    let started = Instant::now();
    let fail = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let damaged = |what: &str| {
        format!(
            "{} {what}: remove its folder and start again",
            path.display()
        )
    };
    let (file, direct) = open(path, OpenOptions::new().read(true)).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    if len != file_len(words) {
        return Err(damaged("is not as long as its slab's bits"));
    }
    let mut buffer = Aligned::new();
    let mut read = 0;
    let mut read_at = |at: u64, n: usize, buffer: &mut Aligned| -> Result<(), String> {
        let piece = buffer.get(n);
        let mut got = 0;
        while got < n {
            match file
                .read_at(&mut piece[got..], at + got as u64)
                .map_err(fail)?
            {
                0 => return Err(damaged("is shorter than its slab's bits")),
                more => got += more,
            }
        }
        read += n as u64;
        Ok(())
    };
    for (k, first) in (0..words).step_by(PIECE_WORDS).enumerate() {
        let piece = first..(first + PIECE_WORDS).min(words);
        let raw = 8 * piece.len();
        let at = k as u64 * SLOT;
        read_at(at, BLOCK, &mut buffer)?;
        let header = buffer.get(BLOCK);
        let field = |i: usize| u64::from_le_bytes(header[8 * i..8 * i + 8].try_into().unwrap());
        let (kind, n, count) = (field(0), field(1) as usize, field(2));
        let fits = match kind {
            WORDS => n == raw,
            GAPS => n < raw && count <= 64 * piece.len() as u64,
            _ => false,
        };
        if !fits {
            return Err(damaged("has a damaged piece"));
        }
        read_at(at + BLOCK as u64, n.next_multiple_of(BLOCK), &mut buffer)?;
        let body = &buffer.get(n)[..n];
        wait(piece.end);
        if kind == WORDS {
            bits.store_le_bytes(first, body);
            continue;
        }
        // The piece's words, built one at a time from its ascending entries.
        let (mut w, mut word, mut seen) = (first, 0u64, 0u64);
        let mut inside = true;
        let whole = gaps::decode_each(body, |at| {
            let to = first + (at / 64) as usize;
            if to >= piece.end || to < w || 64 * first as u64 + at >= bits.len() {
                inside = false;
                return;
            }
            while w < to {
                bits.store_word(w, word);
                (w, word) = (w + 1, 0);
            }
            word |= 1 << (at % 64);
            seen += 1;
        });
        if !(whole && inside && seen == count) {
            return Err(damaged("has a damaged piece"));
        }
        for rest in w..piece.end {
            bits.store_word(rest, if rest == w { word } else { 0 });
        }
    }
    if !direct {
        uncache(&file);
    }
    Ok(Io {
        read,
        written: 0,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of this test process named `name`, in the temporary folder.
    fn scratch(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("gpusearch-bits-{name}-{}", std::process::id()))
    }

    /// `bits` written and read back into a bitmap holding other bits before.
    fn round_trip(bits: &Bitmap) -> (Bitmap, Io) {
        let path = scratch(&format!("round-trip-{}", bits.len()));
        let words = bits.word_count();
        let written = write_bits(&path, bits, words, &mut Aligned::new(), &|_| ()).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            file_len(bits.word_count())
        );
        let back = Bitmap::from_fn(bits.len(), |w| {
            (w as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        });
        let read = read_bits(&path, &back, words, &|_| ()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read.read, written.written);
        (back, written)
    }

    #[test]
    fn bits_come_back_as_they_were_written() {
        let len = 3 * 64 * PIECE_WORDS as u64 + 1000;
        // Sparse: gaps, a block and a little more a piece.
        let sparse =
            Bitmap::from_ranks(len, &[0, 1, 63, 64, 5000, 64 * PIECE_WORDS as u64, len - 1]);
        let (back, io) = round_trip(&sparse);
        assert!((0..sparse.word_count()).all(|w| back.word(w) == sparse.word(w)));
        assert_eq!(io.written, 7 * BLOCK as u64);
        // Dense in the first piece, empty in the others.
        let dense = Bitmap::from_fn(len, |w| {
            if w < PIECE_WORDS {
                0x0101_0101_0101_0101
            } else {
                0
            }
        });
        let (back, io) = round_trip(&dense);
        assert!((0..dense.word_count()).all(|w| back.word(w) == dense.word(w)));
        assert_eq!(io.written, (BLOCK + IO_BYTES) as u64 + 3 * BLOCK as u64);
        // Nothing at all, and no words.
        let (back, _) = round_trip(&Bitmap::new(len));
        assert!((0..back.word_count()).all(|w| back.word(w) == 0));
        round_trip(&Bitmap::new(0));
    }

    #[test]
    fn damaged_bits_are_refused() {
        let path = scratch("damaged");
        let bits = Bitmap::from_ranks(10_000, &[3, 7, 9_999]);
        let words = bits.word_count();
        write_bits(&path, &bits, words, &mut Aligned::new(), &|_| ()).unwrap();
        // A gap past the piece's end.
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(&[0xff, 0x7f], BLOCK as u64).unwrap();
        let e = read_bits(&path, &bits, words, &|_| ()).unwrap_err();
        assert!(
            e.contains("damaged piece") && e.contains("start again"),
            "{e}"
        );
        // Cut short.
        file.set_len(BLOCK as u64).unwrap();
        let e = read_bits(&path, &bits, words, &|_| ()).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(e.contains("not as long"), "{e}");
    }
}
