//! The parameters of one dispatch, as the kernels read them: `shaders/bfs.wgsl`'s `Params`,
//! field by field in the same order (a test parses the shader and holds the two alike).

use crate::gpu::layout::Dispatch;
use bytemuck::{Pod, Zeroable};

/// One dispatch's parameters: its blocks, the level's tables, the frontier lists, a slab's
/// geometry and a remaining pass's tag. 64-bit figures are split low word first, as WGSL's
/// uniform buffers hold no `u64`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Params {
    /// The window of this dispatch.
    pub window: u32,
    /// Its first block in the window.
    pub first_block: u32,
    /// How many blocks it covers.
    pub blocks: u32,
    /// Its slot of counts.
    pub slot: u32,
    /// Which of the three level tables holds the level being expanded (`depth % 3`).
    pub cur: u32,
    /// Which one receives the next level.
    pub next: u32,
    /// Which one holds the level before.
    pub prev: u32,
    /// Log2 of the blocks per window.
    pub window_shift: u32,
    /// The table's entries, low word.
    pub entries_lo: u32,
    /// The table's entries, high word.
    pub entries_hi: u32,
    /// Ranks each frontier list holds at most.
    pub list_capacity: u32,
    /// Which of the three lists holds the level before (the others follow, cyclically).
    pub list_rotation: u32,
    /// The length of the list of the level before.
    pub list_prev: u32,
    /// The length of the list of the level being expanded.
    pub list_cur: u32,
    /// Whether a scan appends the entries it sets to the next list (1) or not (0).
    pub list_append: u32,
    /// The length of the remaining list, in a remaining pass.
    pub remaining: u32,
    /// A slab's first column, low word (0 for the whole table).
    pub slab_first_lo: u32,
    /// A slab's first column, high word.
    pub slab_first_hi: u32,
    /// A slab's columns, low word (the table's entries for the whole table).
    pub slab_columns_lo: u32,
    /// A slab's columns, high word.
    pub slab_columns_hi: u32,
    /// The ranks of a plane, low word (the table's entries for the whole table).
    pub slab_width_lo: u32,
    /// The ranks of a plane, high word.
    pub slab_width_hi: u32,
    /// The tag a remaining pass gives the listed entries it sets.
    pub tag: u32,
    /// Room up to a multiple of 16 bytes, as a uniform buffer's binding is read; not in the
    /// shader's struct.
    pub padding: u32,
}

/// Bytes of one dispatch's parameters, a multiple of 16 (a uniform buffer's alignment).
pub const PARAMS_BYTES: u64 = std::mem::size_of::<Params>() as u64;

const _: () = assert!(PARAMS_BYTES.is_multiple_of(16));

impl Params {
    /// The parameters of a table of `entries` entries whose slab is `[first column, columns,
    /// ranks a plane]` (`[0, entries, entries]` for the whole table), the rest 0.
    pub fn of_table(entries: u64, [first, columns, width]: [u64; 3]) -> Params {
        let (entries_lo, entries_hi) = words(entries);
        let (slab_first_lo, slab_first_hi) = words(first);
        let (slab_columns_lo, slab_columns_hi) = words(columns);
        let (slab_width_lo, slab_width_hi) = words(width);
        Params {
            entries_lo,
            entries_hi,
            slab_first_lo,
            slab_first_hi,
            slab_columns_lo,
            slab_columns_hi,
            slab_width_lo,
            slab_width_hi,
            ..Params::default()
        }
    }

    /// These parameters for dispatch `d`, counting into slot `slot`.
    pub fn at(self, d: &Dispatch, slot: u32) -> Params {
        Params {
            window: d.window,
            first_block: d.first_block,
            blocks: d.blocks,
            slot,
            ..self
        }
    }
}

/// Splits `value` into its low and high 32-bit words.
fn words(value: u64) -> (u32, u32) {
    (value as u32, (value >> 32) as u32)
}

#[cfg(test)]
mod tests {
    use super::{PARAMS_BYTES, Params};
    use crate::gpu::layout::Layout;
    use std::mem::offset_of;
    use wgpu::naga;

    /// `Params`'s fields as the shader names them, each with its offset here: the names are
    /// written again on purpose, as the list the shader's struct is held against.
    macro_rules! fields {
        ($($name:ident),* $(,)?) => {
            vec![$((stringify!($name), offset_of!(Params, $name) as u32)),*]
        };
    }

    #[test]
    fn the_parameters_are_laid_out_as_the_shader_reads_them() {
        // The kernels as the engine builds them, with no puzzle, parsed by wgpu's own compiler.
        let layout = Layout::plan(1 << 20, 1 << 30).unwrap();
        let puzzle = include_str!("../../../shaders/no_puzzle.wgsl");
        let source = super::super::build::shader_source(&layout, puzzle, true);
        let module = naga::front::wgsl::parse_str(&source).unwrap();
        let (members, span) = (module.types.iter())
            .find_map(|(_, t)| match (&t.name, &t.inner) {
                (Some(name), naga::TypeInner::Struct { members, span }) if name == "Params" => {
                    Some((members.clone(), *span))
                }
                _ => None,
            })
            .expect("shaders/bfs.wgsl declares Params");
        let shader: Vec<(&str, u32)> = (members.iter())
            .map(|m| (m.name.as_deref().unwrap(), m.offset))
            .collect();
        let ours = fields![
            window,
            first_block,
            blocks,
            slot,
            cur,
            next,
            prev,
            window_shift,
            entries_lo,
            entries_hi,
            list_capacity,
            list_rotation,
            list_prev,
            list_cur,
            list_append,
            remaining,
            slab_first_lo,
            slab_first_hi,
            slab_columns_lo,
            slab_columns_hi,
            slab_width_lo,
            slab_width_hi,
            tag,
        ];
        assert_eq!(shader, ours);
        // Every member a 32-bit word, and nothing here past the shader's struct but the padding.
        assert!(
            members
                .iter()
                .all(|m| module.types[m.ty].inner == naga::TypeInner::Scalar(naga::Scalar::U32))
        );
        assert_eq!(offset_of!(Params, padding) as u32, span);
        assert_eq!(PARAMS_BYTES, u64::from(span).next_multiple_of(16));
    }
}
