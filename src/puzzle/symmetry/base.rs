//! Any family's space behind a pointer ([`Base`]): what a reduced space wraps, whatever the
//! family, and what `solve` walks the positions of a reduced table with.

use crate::puzzle::{Cursor, PuzzleInfo, StateSpace};

/// A state space as a reduced space sees it: ranks, states and a walker over ranks, whatever
/// the family.
pub trait Base: Send + Sync {
    /// [`StateSpace::size`].
    fn size(&self) -> u64;
    /// [`StateSpace::solved`].
    fn solved(&self) -> u64;
    /// [`StateSpace::starts`].
    fn starts(&self) -> Vec<u64>;
    /// [`StateSpace::move_names`].
    fn move_names(&self) -> Vec<String>;
    /// [`StateSpace::move_count`].
    fn move_count(&self) -> usize;
    /// [`StateSpace::state`].
    fn state(&self, rank: u64) -> Vec<u32>;
    /// [`StateSpace::rank`].
    fn rank(&self, state: &[u32]) -> Result<u64, String>;
    /// [`StateSpace::format_state`].
    fn format_state(&self, state: &[u32]) -> String;
    /// [`StateSpace::parse_state`].
    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String>;
    /// [`StateSpace::info`].
    fn info(&self) -> PuzzleInfo;
    /// [`StateSpace::slug`].
    fn slug(&self) -> String;
    /// A cursor over its ranks.
    fn walker(&self) -> Box<dyn Walker + '_>;
    /// [`StateSpace::move_state`].
    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool;
    /// A state as the family writes it in reports: itself, but where the space is a view of
    /// the family's in other states (a twisty puzzle's stickers).
    fn written(&self, state: &[u32]) -> Vec<u32> {
        state.to_vec()
    }
    /// A state as [`Base::written`] gives it, in the family's notation.
    fn format_written(&self, written: &[u32]) -> String {
        self.format_state(written)
    }
}

/// A [`Cursor`] behind a pointer.
pub trait Walker {
    /// [`Cursor::seek`].
    fn seek(&mut self, rank: u64);
    /// [`Cursor::neighbour`].
    fn neighbour(&mut self, mv: usize) -> u64;
}

/// A family's cursor as a [`Walker`].
struct Walking<C>(C);

impl<C: Cursor> Walker for Walking<C> {
    fn seek(&mut self, rank: u64) {
        self.0.seek(rank)
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        self.0.neighbour(mv)
    }
}

/// A family's space as a [`Base`].
pub struct Erased<S>(pub S);

impl<S: StateSpace + Send> Base for Erased<S> {
    fn size(&self) -> u64 {
        StateSpace::size(&self.0)
    }
    fn solved(&self) -> u64 {
        StateSpace::solved(&self.0)
    }
    fn starts(&self) -> Vec<u64> {
        StateSpace::starts(&self.0)
    }
    fn move_names(&self) -> Vec<String> {
        StateSpace::move_names(&self.0)
    }
    fn move_count(&self) -> usize {
        StateSpace::move_count(&self.0)
    }
    fn state(&self, rank: u64) -> Vec<u32> {
        StateSpace::state(&self.0, rank)
    }
    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        StateSpace::rank(&self.0, state)
    }
    fn format_state(&self, state: &[u32]) -> String {
        StateSpace::format_state(&self.0, state)
    }
    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        StateSpace::parse_state(&self.0, text)
    }
    fn info(&self) -> PuzzleInfo {
        StateSpace::info(&self.0)
    }
    fn slug(&self) -> String {
        StateSpace::slug(&self.0)
    }
    fn walker(&self) -> Box<dyn Walker + '_> {
        Box::new(Walking(self.0.cursor()))
    }
    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        StateSpace::move_state(&self.0, state, mv, out)
    }
}

impl Cursor for Box<dyn Walker + '_> {
    fn seek(&mut self, rank: u64) {
        (**self).seek(rank)
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        (**self).neighbour(mv)
    }
}

/// The space behind a [`Base`], whatever its family: what `solve` walks on a reduced table's
/// positions.
impl StateSpace for dyn Base {
    type Cursor<'a> = Box<dyn Walker + 'a>;

    fn size(&self) -> u64 {
        Base::size(self)
    }
    fn move_names(&self) -> Vec<String> {
        Base::move_names(self)
    }
    fn move_count(&self) -> usize {
        Base::move_count(self)
    }
    fn solved(&self) -> u64 {
        Base::solved(self)
    }
    fn starts(&self) -> Vec<u64> {
        Base::starts(self)
    }
    fn cursor(&self) -> Self::Cursor<'_> {
        self.walker()
    }
    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        Base::move_state(self, state, mv, out)
    }
    fn state(&self, rank: u64) -> Vec<u32> {
        Base::state(self, rank)
    }
    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        Base::rank(self, state)
    }
    fn format_state(&self, state: &[u32]) -> String {
        Base::format_state(self, state)
    }
    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        Base::parse_state(self, text)
    }
    fn info(&self) -> PuzzleInfo {
        Base::info(self)
    }
    fn slug(&self) -> String {
        Base::slug(self)
    }
}
