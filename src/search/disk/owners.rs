//! Which slab holds a rank, and where, by multiplications: a pass asks it of every neighbour it
//! pushes, and the two divisions it takes otherwise (by the planes' width, by the cut's unit)
//! cost more than the rest of asking.

use crate::search::slab::Slab;

/// Units of columns up to which the slab of each is kept in a list; beyond, the cuts are
/// searched.
const MOST_UNITS: u64 = 1 << 20;

/// Division by a fixed `d` of numbers below 2^`bits`, as a multiplication and a shift
/// (Granlund and Montgomery): with `shift = bits + ceil(log2 d)` and `m = 2^shift / d + 1`,
/// `m * d = 2^shift + e` with `0 < e <= d`, so `n * m / 2^shift` exceeds `n / d` by less than
/// `2^bits * e / (d * 2^shift) <= 2^-ceil(log2 d) <= 1 / d`: never past the next whole number.
#[derive(Clone, Copy, Debug)]
struct Divisor {
    d: u64,
    m: u64,
    shift: u32,
}

impl Divisor {
    fn new(d: u64, bits: u32) -> Divisor {
        assert!(d > 0 && bits <= 62, "a divisor of 0, or numbers too large");
        let shift = bits + (u64::BITS - (d - 1).leading_zeros());
        let m = ((1u128 << shift) / u128::from(d) + 1) as u64;
        Divisor { d, m, shift }
    }

    /// `n / d`, for `n` below 2^`bits`.
    #[inline]
    fn div(&self, n: u64) -> u64 {
        ((u128::from(n) * u128::from(self.m)) >> self.shift) as u64
    }
}

/// Which of a table's slabs holds each rank.
pub(super) struct Owners {
    width: Divisor,
    unit: Divisor,
    /// The slab holding each unit of columns, where there are at most [`MOST_UNITS`].
    of_unit: Vec<u32>,
    /// The columns the slabs start at, and the width.
    bounds: Vec<u64>,
    /// The bits of a rank of the space.
    rank_bits: u32,
}

impl Owners {
    /// The owners of the ranks of a space of `size` ranks cut into `slabs` at multiples of
    /// `unit` columns.
    pub(super) fn new(slabs: &[Slab], unit: u64, size: u64) -> Owners {
        let width = slabs[0].width;
        let rank_bits = (u64::BITS - size.leading_zeros()).max(1);
        let bounds: Vec<u64> = (slabs.iter().map(|s| s.first)).chain([width]).collect();
        let units = width.div_ceil(unit);
        let of_unit = match units <= MOST_UNITS {
            true => (0..units)
                .map(|u| (bounds.partition_point(|&b| b <= u * unit) - 1) as u32)
                .collect(),
            false => Vec::new(),
        };
        Owners {
            width: Divisor::new(width, rank_bits),
            unit: Divisor::new(unit, rank_bits),
            of_unit,
            bounds,
            rank_bits,
        }
    }

    /// The bits of a rank of the space: above them a rank can carry the slab that holds it.
    pub(super) fn rank_bits(&self) -> u32 {
        self.rank_bits
    }

    /// The plane and the column of `rank`.
    #[inline]
    pub(super) fn place(&self, rank: u64) -> (u64, u64) {
        let plane = self.width.div(rank);
        (plane, rank - plane * self.width.d)
    }

    /// The slab that holds the ranks of `column`.
    #[inline]
    pub(super) fn of_column(&self, column: u64) -> usize {
        match self.of_unit.get(self.unit.div(column) as usize) {
            Some(&s) => s as usize,
            None => self.bounds.partition_point(|&b| b <= column) - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::slab::Slab;

    #[test]
    fn a_divisor_divides_as_division_does() {
        for bits in [1, 7, 20, 33, 40, 62] {
            let top = (1u64 << bits) - 1;
            for d in [
                1,
                2,
                3,
                7,
                10,
                32,
                479_001_600,
                6_227_020_800,
                top,
                top / 3 + 1,
            ] {
                if d == 0 || d > top {
                    continue;
                }
                let div = Divisor::new(d, bits);
                let probes = (0..2000u64).flat_map(|i| {
                    let spread = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & top;
                    [
                        i & top,
                        top - (i & top),
                        spread,
                        (spread / d) * d,
                        ((spread / d) * d).wrapping_sub(1),
                    ]
                });
                for n in probes.filter(|&n| n <= top) {
                    assert_eq!(div.div(n), n / d, "{n} / {d} below 2^{bits}");
                }
            }
        }
    }

    #[test]
    fn every_rank_has_the_owner_of_its_slab() {
        // Cut at units of 64 columns (a list of units) and of 32 in a wide plane (searched).
        for (size, planes, count, unit) in [(64 * 1000 * 3, 3, 7, 64), (32 * 3000, 1, 5, 32)] {
            let slabs: Vec<Slab> = (0..count)
                .map(|i| Slab::cut(size, planes, i, count, unit))
                .collect();
            let mut owners = Owners::new(&slabs, unit, size);
            // With the list of units, then searching the cuts.
            for listed in [true, false] {
                assert_eq!(owners.of_unit.is_empty(), !listed);
                for rank in (0..size).step_by(7).chain([size - 1]) {
                    let want = slabs.iter().position(|s| s.contains(rank)).unwrap();
                    assert_eq!(owners.of_column(owners.place(rank).1), want, "{rank}");
                    assert_eq!(owners.place(rank), slabs[want].place(rank), "{rank}");
                }
                owners.of_unit.clear();
            }
        }
    }
}
