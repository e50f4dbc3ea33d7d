//! Ascending ranks as the gaps between them, each in 7-bit groups, low first, the high bit set on
//! all but a gap's last (LEB128): how the MPI engine's exchange and the disk tier's inboxes carry
//! ranks.

/// Appends the gaps between `ranks` (ascending; the first from 0) to `out`.
pub fn encode(ranks: &[u64], out: &mut Vec<u8>) {
    let mut last = 0;
    for &r in ranks {
        encode_gap(r - last, out);
        last = r;
    }
}

/// Encodes ascending `ranks` as [`encode`] does, into their own memory (each gap takes at most
/// eight bytes where it is below 2^56, so no rank is overwritten before it is read): returns how
/// many of the slice's first bytes the gaps take.
pub fn encode_in_place(ranks: &mut [u64]) -> usize {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(ranks);
    let (mut at, mut last) = (0, 0u64);
    for i in 0..bytes.len() / 8 {
        let r = u64::from_ne_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        let mut gap = r - last;
        assert!(gap < 1 << 56, "a gap of {gap} between ranks");
        last = r;
        while gap >= 0x80 {
            bytes[at] = gap as u8 | 0x80;
            at += 1;
            gap >>= 7;
        }
        bytes[at] = gap as u8;
        at += 1;
    }
    at
}

/// Appends one gap to `out`.
#[inline]
pub fn encode_gap(mut gap: u64, out: &mut Vec<u8>) {
    while gap >= 0x80 {
        out.push(gap as u8 | 0x80);
        gap >>= 7;
    }
    out.push(gap as u8);
}

/// Appends the ranks whose gaps `bytes` holds to `ranks`; false when the bytes end inside a gap.
pub fn decode(bytes: &[u8], ranks: &mut Vec<u64>) -> bool {
    decode_each(bytes, |r| ranks.push(r))
}

/// Calls `f` with each rank whose gap `bytes` holds, in order; false when the bytes end inside
/// a gap or a rank passes `u64::MAX`.
#[inline]
pub fn decode_each(bytes: &[u8], mut f: impl FnMut(u64)) -> bool {
    let (mut last, mut gap, mut shift) = (0u64, 0u64, 0);
    for &b in bytes {
        if shift > 63 {
            return false;
        }
        gap |= u64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            last = match last.checked_add(gap) {
                Some(r) => r,
                None => return false,
            };
            f(last);
            (gap, shift) = (0, 0);
        }
    }
    shift == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_come_back_from_their_gaps() {
        let ranks = [0, 1, 127, 128, 300, 1 << 40, u64::MAX];
        let mut bytes = Vec::new();
        encode(&ranks, &mut bytes);
        let mut back = Vec::new();
        assert!(decode(&bytes, &mut back));
        assert_eq!(back, ranks);
        // Cut inside the last gap.
        assert!(!decode(&bytes[..bytes.len() - 1], &mut Vec::new()));
        // In place, the same bytes (ranks below 2^56).
        let mut ranks = [0, 1, 127, 128, 300, 1 << 40, (1 << 40) + (1 << 55)];
        let mut bytes = Vec::new();
        encode(&ranks, &mut bytes);
        let n = encode_in_place(&mut ranks);
        assert_eq!(&bytemuck::cast_slice::<u64, u8>(&ranks)[..n], &bytes[..]);
    }
}
