//! Ascending ranks as the gaps between them, each in 7-bit groups, low first, the high bit set on
//! all but a gap's last (LEB128): how the MPI engine's exchange and the disk tier's inboxes carry
//! ranks.

/// Appends the gaps between `ranks` (ascending; the first from 0) to `out`.
pub fn encode(ranks: &[u64], out: &mut Vec<u8>) {
    let mut last = 0;
    for &r in ranks {
        let mut gap = r - last;
        last = r;
        while gap >= 0x80 {
            out.push(gap as u8 | 0x80);
            gap >>= 7;
        }
        out.push(gap as u8);
    }
}

/// Appends the ranks whose gaps `bytes` holds to `ranks`; false when the bytes end inside a gap.
pub fn decode(bytes: &[u8], ranks: &mut Vec<u64>) -> bool {
    let (mut last, mut gap, mut shift) = (0u64, 0u64, 0);
    for &b in bytes {
        gap |= u64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            last += gap;
            ranks.push(last);
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
    }
}
