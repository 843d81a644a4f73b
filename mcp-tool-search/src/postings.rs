//! [`Posting`]: a term in one document, eight bytes — the document and the term's frequencies
//! in the five fields of the tool's own text, six bits each ([`pack`]); a frequency over 63
//! moves the five to a side table (the index's overflow), where the posting points instead.

use crate::field::OWN_FIELDS;

/// Bits of a packed posting per own field ([`pack`]).
const PACKED_BITS: u32 = 6;
/// The most a field's frequency may be in a packed posting.
const PACKED_MAX: u16 = (1 << PACKED_BITS) - 1;
/// The bit of a packed posting whose frequencies are in the overflow instead.
pub(crate) const IN_OVERFLOW: u32 = 1 << 31;

/// A term in one document: how often in each of the tool's own fields ([`pack`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Posting {
    pub(crate) entry: u32,
    pub(crate) frequencies: u32,
}

impl Posting {
    /// The posting of an overflow kept elsewhere, `by` places further along.
    pub(crate) fn moved_overflow(mut self, by: u32) -> Self {
        if self.frequencies & IN_OVERFLOW != 0 {
            let at = (self.frequencies & !IN_OVERFLOW).saturating_add(by);
            self.frequencies = IN_OVERFLOW | at.min(!IN_OVERFLOW);
        }
        self
    }
}

/// The frequencies of a document's own fields in a posting's 32 bits: six bits each, or, when
/// one is over 63, the place of all five in `overflow` (marked [`IN_OVERFLOW`]).
pub(crate) fn pack(frequencies: [u16; OWN_FIELDS], overflow: &mut Vec<[u16; OWN_FIELDS]>) -> u32 {
    let at = u32::try_from(overflow.len())
        .ok()
        .filter(|at| *at < IN_OVERFLOW);
    match at {
        Some(at) if frequencies.iter().any(|frequency| *frequency > PACKED_MAX) => {
            overflow.push(frequencies);
            IN_OVERFLOW | at
        }
        // Past two billion overflowing postings, a frequency saturates at 63.
        _ => frequencies
            .iter()
            .enumerate()
            .fold(0, |packed, (field, frequency)| {
                packed | u32::from((*frequency).min(PACKED_MAX)) << (PACKED_BITS * field as u32)
            }),
    }
}

/// The frequencies [`pack`] packed.
pub(crate) fn unpack(packed: u32, overflow: &[[u16; OWN_FIELDS]]) -> [u16; OWN_FIELDS] {
    if packed & IN_OVERFLOW != 0 {
        return overflow
            .get((packed & !IN_OVERFLOW) as usize)
            .copied()
            .unwrap_or_default();
    }
    std::array::from_fn(|field| (packed >> (PACKED_BITS * field as u32)) as u16 & PACKED_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_over_63_move_to_the_overflow_and_come_back_whole() {
        let mut overflow = Vec::new();
        let small = [1, 0, 63, 2, 0];
        let packed = pack(small, &mut overflow);
        assert!(overflow.is_empty());
        assert_eq!(unpack(packed, &overflow), small);
        let large = [0, 0, 64, 1, 300];
        let packed = pack(large, &mut overflow);
        assert_eq!(unpack(packed, &overflow), large);
        // Moved behind another share's two overflows, it points at its own again.
        let moved = Posting {
            entry: 7,
            frequencies: packed,
        }
        .moved_overflow(2);
        let mut joined = vec![[9; OWN_FIELDS], [9; OWN_FIELDS]];
        joined.extend(overflow);
        assert_eq!(unpack(moved.frequencies, &joined), large);
        let plain = Posting {
            entry: 7,
            frequencies: pack(small, &mut Vec::new()),
        };
        assert_eq!(plain.moved_overflow(2).frequencies, plain.frequencies);
    }
}
