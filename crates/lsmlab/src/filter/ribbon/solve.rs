//! Back-substitution: the banded system solved from the last slot to the first, straight into
//! the interleaved layout lookups read (construction, part 2); scalar, POPCNT and AVX-512.

use super::*;

/// Up to this many columns the scalar solver is as fast as the AVX-512 one (one register's
/// worth of columns; at 100k keys, 4 columns: scalar 3.2 ns per key, AVX-512 4.0), which pays
/// a fixed latency per slot whatever the column count (4.4 ns at 7 columns, 5.7 at 13).
pub(super) const SCALAR_MAX_COLUMNS: u32 = 4;

/// The AVX-512 solver when it pays and the CPU has it, else [`back_substitute_impl`] in its
/// POPCNT variant when the CPU has the instruction.
pub(super) fn back_substitute(coeff: &[u128], result: &[u32], layout: Layout, words: &mut [u128]) {
    #[cfg(target_arch = "x86_64")]
    if layout.upper_columns > SCALAR_MAX_COLUMNS && avx512::available() {
        // SAFETY: `available` checked every feature the callee is compiled with.
        return unsafe { avx512::back_substitute(coeff, result, layout, words) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT (checked just above), the one requirement of the callee.
        return unsafe { back_substitute_popcnt(coeff, result, layout, words) };
    }
    back_substitute_impl(coeff, result, layout, words)
}

/// [`back_substitute_impl`] compiled with POPCNT: each parity is one instruction instead of a
/// fold of shifts and XORs, which is most of the work.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
pub(super) fn back_substitute_popcnt(
    coeff: &[u128],
    result: &[u32],
    layout: Layout,
    words: &mut [u128],
) {
    back_substitute_impl(coeff, result, layout, words)
}

/// The stored rows and result bits of the 128 slots of `block`; `None` past the band.
#[inline(always)]
pub(super) fn block_rows<'a>(
    coeff: &'a [u128],
    result: &'a [u32],
    block: usize,
) -> Option<(&'a [u128], &'a [u32])> {
    let base = block * WIDTH;
    Some((
        coeff.get(base..base + WIDTH)?,
        result.get(base..base + WIDTH)?,
    ))
}

/// Solves the banded system from the last slot to the first into `words` (interleaved).
///
/// `window[j]` holds column `j` of the solution for the 128 slots from the current one: bit 0
/// is the current slot, bit `k` the slot `k` after it. Moving one slot down shifts every window
/// left by one; the new bit is the row's result XOR the parity of the row's other bits against
/// the window. When the current slot is the first of a block, the window is exactly that
/// block's word. Free slots (row 0, result 0) get solution 0 through the same arithmetic.
#[inline(always)]
pub(super) fn back_substitute_impl(
    coeff: &[u128],
    result: &[u32],
    layout: Layout,
    words: &mut [u128],
) {
    let mut window = [0u128; MAX_COLUMNS as usize];
    for block in (0..layout.num_blocks).rev() {
        // Columns only shrink going down, so the windows of this block's columns are complete.
        let cols = layout.columns(block) as usize;
        let Some((rows, results)) = block_rows(coeff, result, block) else {
            return;
        };
        solve_block(cols, rows, results, &mut window);
        let off = layout.word_offset(block);
        if let Some(dst) = words.get_mut(off..off + cols) {
            dst.copy_from_slice(&window[..cols]);
        }
    }
}

/// Columns solved together in one pass over a block's slots. Each column's 128-bit window
/// takes two of x86-64's 16 general registers; with all 7 columns of 10 bits per key in one
/// pass the windows spilled to the stack, and a slot cost about 106 instructions (15 per
/// column). In passes of at most 4 columns the windows stay in registers, and re-reading a
/// slot's row and result once per pass (from L1) costs less than the spills did.
pub(super) const SOLVE_GROUP: usize = 4;

/// Moves the windows of the block's `cols` columns down through one block (`rows`,
/// `results`: its 128 slots), in passes of at most [`SOLVE_GROUP`] columns. Columns are
/// independent of each other, so the passes may run in any order.
#[inline(always)]
pub(super) fn solve_block(
    cols: usize,
    rows: &[u128],
    results: &[u32],
    window: &mut [u128; MAX_COLUMNS as usize],
) {
    let mut first = 0;
    while first < cols {
        let group = (cols - first).min(SOLVE_GROUP);
        let Some(w) = window.get_mut(first..first + group) else {
            return;
        };
        match group {
            1 => solve_columns::<1>(rows, results, first, w),
            2 => solve_columns::<2>(rows, results, first, w),
            3 => solve_columns::<3>(rows, results, first, w),
            _ => solve_columns::<SOLVE_GROUP>(rows, results, first, w),
        }
        first += group;
    }
}

/// Moves the windows of columns `first..first + C` (`window`) down through one block, from
/// its last slot to its first. `C` is a constant in each instance, so the windows live in
/// registers.
///
/// `parity((w << 1) & c)` is computed as `parity(w & (c >> 1))`: the same bits (slot `k + 1`'s
/// bit against coefficient `k + 1`), but the shift of `c` is shared by all columns and the
/// shift of `w` leaves each column's dependency chain.
#[inline(always)]
pub(super) fn solve_columns<const C: usize>(
    rows: &[u128],
    results: &[u32],
    first: usize,
    window: &mut [u128],
) {
    let mut w = [0u128; C];
    w.copy_from_slice(&window[..C]);
    for (&c, &r) in rows.iter().zip(results).rev() {
        let c1 = c >> 1;
        let r = r >> first;
        for (j, wj) in w.iter_mut().enumerate() {
            let bit = ((r >> j) ^ parity(*wj & c1)) & 1;
            *wj = (*wj << 1) | bit as u128;
        }
    }
    window[..C].copy_from_slice(&w);
}

/// Back-substitution with AVX-512: four columns per 512-bit register.
///
/// The scalar solver spends about ten instructions per column and slot (two ANDs, a fold, a
/// POPCNT, the result bit, a 128-bit shift, an OR); at 13 columns that is 13 ns per key. Here a
/// register holds the 128-bit windows of four columns (lanes `lo, hi` per column, the `u128`
/// memory order), and one slot costs per register: AND with the broadcast `c >> 1`, VPOPCNTQ,
/// a lane swap and a three-way XOR (the two halves' parities and the result bit), the 128-bit
/// shift by one (VPSHLDQ with a byte-shifted copy) and an AND-OR of the new bits. All of it
/// stays in vector registers: a first version that went through mask registers and back
/// (test, mask XORs, masked OR) measured 10–12 ns per key at any column count, the latency of
/// that round trip on every slot.
#[cfg(target_arch = "x86_64")]
pub(super) mod avx512 {
    use super::{Layout, MAX_COLUMNS, WIDTH};
    use std::arch::x86_64::*;

    /// Columns per 512-bit register: four 128-bit windows.
    pub(super) const COLS_PER_REG: usize = 4;
    /// Registers for [`MAX_COLUMNS`] columns.
    pub(super) const MAX_REGS: usize = MAX_COLUMNS as usize / COLS_PER_REG;

    /// The CPU has every feature [`back_substitute`] is compiled with.
    pub(in crate::filter::ribbon) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("bmi2")
    }

    /// Same result as [`super::back_substitute_impl`] (checked by
    /// `avx512_back_substitution_matches_scalar`).
    ///
    /// # Safety
    /// The CPU must have the features [`available`] checks.
    #[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,avx512vbmi2,bmi2")]
    pub(in crate::filter::ribbon) unsafe fn back_substitute(
        coeff: &[u128],
        result: &[u32],
        layout: Layout,
        words: &mut [u128],
    ) {
        let regs = (layout.upper_columns as usize).div_ceil(COLS_PER_REG);
        macro_rules! dispatch {
            ($($n:literal)*) => {
                match regs {
                    $($n => solve::<$n>(coeff, result, layout, words),)*
                    _ => {}
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8);
    }

    /// [`back_substitute`] with `R` registers of windows, a constant so that they stay in
    /// registers.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,avx512vbmi2,bmi2")]
    pub(super) fn solve<const R: usize>(
        coeff: &[u128],
        result: &[u32],
        layout: Layout,
        words: &mut [u128],
    ) {
        let mut win = [_mm512_setzero_si512(); R];
        let one = _mm512_set1_epi64(1);
        // 1 in the low lane of each column (even lanes), 0 in the high lanes.
        let low_one = _mm512_maskz_mov_epi64(0x55, one);
        // VPTERNLOG truth tables over inputs a = 0xF0, b = 0xCC, c = 0xAA.
        const XOR3: i32 = 0xF0 ^ 0xCC ^ 0xAA;
        const OR_AND: i32 = 0xF0 | (0xCC & 0xAA);
        // `c >> 1` of each slot of the block, so that the loop broadcasts it from memory.
        let mut shifted = [0u128; WIDTH];
        for block in (0..layout.num_blocks).rev() {
            let cols = layout.columns(block) as usize;
            let Some((rows, results)) = super::block_rows(coeff, result, block) else {
                return;
            };
            for (dst, &c) in shifted.iter_mut().zip(rows) {
                *dst = c >> 1;
            }
            for (c1, &r) in shifted.iter().zip(results).rev() {
                // SAFETY: `c1` is a valid 16-byte location (unaligned load).
                let cb =
                    _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128((c1 as *const u128).cast()) });
                // Result bit j at bit 2j: the position of column j's low lane in a mask.
                let spread = _pdep_u64(r as u64, 0x5555_5555_5555_5555);
                for (z, w) in win.iter_mut().enumerate() {
                    // Result bit j in bit 0 of column j's low lane; off the dependency chain.
                    let rv = _mm512_maskz_mov_epi64((spread >> (COLS_PER_REG * 2 * z)) as u8, one);
                    let pc = _mm512_popcnt_epi64(_mm512_and_si512(*w, cb));
                    // Each lane's count XOR its partner's (the two halves of a column): bit 0
                    // is the column's parity.
                    let partner = _mm512_shuffle_epi32::<0b0100_1110>(pc);
                    let bit = _mm512_ternarylogic_epi64::<XOR3>(pc, partner, rv);
                    // (w << 1) per 128-bit lane: the high lane takes the low lane's top bit.
                    let w1 = _mm512_shldi_epi64::<1>(*w, _mm512_bslli_epi128::<8>(*w));
                    *w = _mm512_ternarylogic_epi64::<OR_AND>(w1, bit, low_one);
                }
            }
            // Registers in memory order are the columns' `u128` windows, column 0 first.
            let mut cols_out = [0u128; MAX_REGS * COLS_PER_REG];
            for (z, w) in win.iter().enumerate() {
                // SAFETY: four `u128` are exactly 64 bytes, written unaligned.
                unsafe {
                    _mm512_storeu_si512(cols_out[z * COLS_PER_REG..].as_mut_ptr().cast(), *w)
                };
            }
            let off = layout.word_offset(block);
            if let (Some(dst), Some(src)) = (words.get_mut(off..off + cols), cols_out.get(..cols)) {
                dst.copy_from_slice(src);
            }
        }
    }
}
