//! A symmetry as a relabelling of positions and pieces, and the group its generators make.

/// One symmetry: the piece at position `i` goes to position `positions[i]` and is relabelled
/// `labels[piece]` (pieces numbered as the family's states write them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Element {
    /// Where each position's piece goes.
    pub positions: Vec<usize>,
    /// The new label of each label.
    pub labels: Vec<u32>,
}

impl Element {
    /// The image of `state` under this symmetry, into `out`.
    pub fn apply(&self, state: &[u32], out: &mut [u32]) {
        for (i, &x) in state.iter().enumerate() {
            out[self.positions[i]] = self.labels[x as usize];
        }
    }

    /// This symmetry followed by `then`.
    pub(super) fn then(&self, then: &Element) -> Element {
        Element {
            positions: self.positions.iter().map(|&p| then.positions[p]).collect(),
            labels: self
                .labels
                .iter()
                .map(|&x| then.labels[x as usize])
                .collect(),
        }
    }

    /// The symmetry that leaves everything where it is, for states of `len` positions and
    /// labels up to `top`.
    pub fn identity(len: usize, top: u32) -> Element {
        Element {
            positions: (0..len).collect(),
            labels: (0..=top).collect(),
        }
    }
}

/// The group `generators` generate, the identity (of `len` positions and labels up to `top`)
/// first.
pub fn group(generators: &[Element], len: usize, top: u32) -> Vec<Element> {
    let mut elements = vec![Element::identity(len, top)];
    let mut seen: std::collections::HashSet<Element> = elements.iter().cloned().collect();
    let mut at = 0;
    while at < elements.len() {
        for g in generators {
            let next = elements[at].then(g);
            if seen.insert(next.clone()) {
                elements.push(next);
            }
        }
        at += 1;
    }
    elements
}
