//! A parsed Ribbon block and its lookups.

use super::*;

/// A parsed Ribbon block.
pub(crate) struct RibbonReader {
    /// The interleaved solution followed by `upper_columns` zero words: the "next block" of the
    /// last block, so a lookup never needs a bounds branch.
    words: Box<[u128]>,
    layout: Layout,
    num_starts: u64,
    seed: u32,
    num_keys: u64,
    /// The CPU has POPCNT: lookups use the variant compiled for it.
    #[cfg(target_arch = "x86_64")]
    popcnt: bool,
}

impl RibbonReader {
    /// Parses the Ribbon part of a block: `body` is the block without the common trailer.
    pub(crate) fn open(body: &[u8], num_keys: u64) -> Result<RibbonReader, String> {
        let Some(data_len) = body.len().checked_sub(PARAM_LEN) else {
            return Err("ribbon filter block too short for its parameters".to_string());
        };
        let (data, params) = body.split_at(data_len);
        let u32_at = |i: usize| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&params[i..i + 4]);
            u32::from_le_bytes(b) as usize
        };
        let num_blocks = u32_at(0);
        let upper_start = u32_at(4);
        let upper_columns = params[8] as u32;
        let seed = params[9] as u32;
        if num_blocks == 0 || upper_start > num_blocks {
            return Err(format!(
                "ribbon filter has {num_blocks} blocks and upper start {upper_start}"
            ));
        }
        if !(1..=MAX_COLUMNS).contains(&upper_columns) {
            return Err(format!(
                "ribbon filter has {upper_columns} columns, expected 1..={MAX_COLUMNS}"
            ));
        }
        let layout = Layout {
            num_blocks,
            upper_columns,
            upper_start,
        };
        // Checked: a corrupt block count must not overflow into a plausible length.
        let words = num_blocks
            .checked_mul(upper_columns as usize)
            .map(|w| w - upper_start)
            .filter(|w| w.checked_mul(WORD_BYTES) == Some(data.len()));
        let Some(num_words) = words else {
            return Err(format!(
                "ribbon filter data is {} bytes, its parameters ({num_blocks} blocks, \
                 {upper_columns} columns from block {upper_start}) need another size",
                data.len()
            ));
        };
        let mut words = Vec::with_capacity(num_words + upper_columns as usize);
        words.extend(data.chunks_exact(WORD_BYTES).map(|chunk| {
            let mut b = [0u8; WORD_BYTES];
            b.copy_from_slice(chunk);
            u128::from_le_bytes(b)
        }));
        words.resize(num_words + upper_columns as usize, 0);
        Ok(RibbonReader {
            words: words.into_boxed_slice(),
            num_starts: layout.num_starts(),
            layout,
            seed,
            num_keys,
            #[cfg(target_arch = "x86_64")]
            popcnt: std::arch::is_x86_feature_detected!("popcnt"),
        })
    }

    /// False only if the key with this hash is certainly absent.
    #[inline]
    pub(crate) fn may_match(&self, hash: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.popcnt {
            // SAFETY: `popcnt` is true only if the CPU has the POPCNT instruction (checked at
            // open), the one requirement of `may_match_popcnt`.
            return unsafe { self.may_match_popcnt(hash) };
        }
        self.may_match_impl(hash)
    }

    /// [`Self::may_match_impl`] compiled with the POPCNT instruction: the parities of the
    /// column loop are then one instruction each instead of a fold of shifts and XORs.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    pub(super) fn may_match_popcnt(&self, hash: u64) -> bool {
        self.may_match_impl(hash)
    }

    #[inline(always)]
    pub(super) fn may_match_impl(&self, hash: u64) -> bool {
        let x = remix(hash, self.seed);
        let start = start_of(x, self.num_starts);
        let block = start / WIDTH;
        let k = start % WIDTH;
        let cols = self.layout.columns(block);
        let off = self.layout.word_offset(block);
        let n = cols as usize;
        // In range by construction (start < num_starts, a zero block pads the end); answering
        // "maybe" is the safe side should that ever not hold.
        let (Some(cur), Some(next)) = (
            self.words.get(off..off + n),
            self.words.get(off + n..off + 2 * n),
        ) else {
            return true;
        };
        // The row's bits in the start block and in the next one; `(c >> 1) >> (127 − k)` is
        // `c >> (128 − k)` without the overflow at k = 0.
        let c = coeff_of(x);
        let lo = c << k;
        let hi = (c >> 1) >> (WIDTH - 1 - k);
        let mut got = 0u32;
        for (j, (w, nx)) in cur.iter().zip(next).enumerate() {
            got |= parity((w & lo) ^ (nx & hi)) << j;
        }
        got == fingerprint_of(x) & column_mask(cols)
    }

    /// Keys the filter was built from.
    pub(crate) fn num_keys(&self) -> u64 {
        self.num_keys
    }

    /// Bytes held.
    pub(crate) fn memory_usage(&self) -> usize {
        std::mem::size_of::<Self>() + self.words.len() * WORD_BYTES
    }

    /// Solution bits per key stored (without the padding block).
    pub(crate) fn solution_bytes(&self) -> usize {
        self.layout.num_words() * WORD_BYTES
    }
}
