//! The body of each benchmark, run by every thread of it (db_bench's `Benchmark::<Method>`).

use super::keygen::{generate_key, KeyGenerator, KeyOrder};
use super::random::Random64;
use super::stats::{OpType, ThreadStats};
use super::valuegen::ValueGenerator;
use crate::bench::pace::budget::OpBudget;
use crate::bench::pace::rate_limit::{self, RateLimiter};
use crate::engine::Store;
use crate::error::CliResult;
use crate::flags::BenchFlags;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the threads of one benchmark share.
pub struct Shared<'a> {
    /// The store.
    pub db: &'a dyn Store,
    /// The flags of the run.
    pub flags: &'a BenchFlags,
    /// Key size of this benchmark (readmissing adds one byte).
    pub key_size: usize,
    /// Threads that have finished.
    pub num_done: AtomicUsize,
    /// Threads of the benchmark.
    pub num_threads: usize,
}

/// One thread of a benchmark.
pub struct ThreadState {
    /// 0..n−1.
    pub tid: usize,
    /// The thread's generator, seeded with `--seed + 1000 + k` (k-th thread of the run).
    pub rand: Random64,
    /// What the thread measured.
    pub stats: ThreadStats,
    /// `--benchmark_write_rate_limit`, this thread's share.
    pub write_limiter: Option<RateLimiter>,
    /// `--benchmark_read_rate_limit`, this thread's share.
    pub read_limiter: Option<RateLimiter>,
}

/// A benchmark body.
pub type Method = fn(&Shared<'_>, &mut ThreadState) -> CliResult<()>;

/// db_bench's `DoWrite`: `--writes` puts in batches of `--batch_size` (whole batches only).
fn do_write(sh: &Shared<'_>, t: &mut ThreadState, order: KeyOrder) -> CliResult<()> {
    let f = sh.flags;
    // As db_bench: --duration applies to random writes only; fillseq writes its count.
    let duration = if order == KeyOrder::Random {
        f.duration
    } else {
        0
    };
    let mut budget = OpBudget::new(f.writes_per_thread(), duration);
    let mut keys = KeyGenerator::new(order, f.num);
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = Vec::with_capacity(sh.key_size);
    let mut bytes = 0;
    let mut batch = sh.db.writer();
    // As db_bench's `Duration::Done(batch)`: only whole batches, while they fit in the count.
    let n = f.batch_size as u64;
    while budget.take(n) {
        rate_limit::request(
            &mut t.write_limiter,
            n * (sh.key_size + f.value_size) as u64,
        );
        for _ in 0..n {
            generate_key(keys.next(&mut t.rand), sh.key_size, &mut key);
            batch.put(&key, values.generate(f.value_size));
            bytes += (sh.key_size + f.value_size) as u64;
        }
        batch.commit()?;
        t.stats.finished_ops(n, OpType::Write);
    }
    t.stats.bytes += bytes;
    t.stats.client_bytes_written += bytes;
    Ok(())
}

/// fillseq: `--num` puts in key order.
pub fn fill_seq(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    do_write(sh, t, KeyOrder::Sequential)
}

/// fillrandom and overwrite: `--num` puts of `Next() % num` keys.
pub fn fill_random(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    do_write(sh, t, KeyOrder::Random)
}

/// deleterandom: `--deletes` deletes of `Next() % num` keys.
pub fn delete_random(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    let f = sh.flags;
    let mut budget = OpBudget::new(f.deletes_per_thread(), f.duration);
    let mut keys = KeyGenerator::new(KeyOrder::Random, f.num);
    let mut key = Vec::with_capacity(sh.key_size);
    let mut batch = sh.db.writer();
    let n = f.batch_size as u64;
    while budget.take(n) {
        for _ in 0..n {
            generate_key(keys.next(&mut t.rand), sh.key_size, &mut key);
            batch.delete(&key);
        }
        batch.commit()?;
        t.stats.finished_ops(n, OpType::Delete);
    }
    Ok(())
}

/// readrandom (and readmissing, whose keys are one byte too long): `--reads` gets.
pub fn read_random(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    let f = sh.flags;
    let mut key = Vec::with_capacity(sh.key_size);
    let (mut read, mut found, mut bytes) = (0u64, 0u64, 0u64);
    let mut budget = OpBudget::new(f.reads_per_thread(), f.duration);
    while budget.take(1) {
        rate_limit::request(&mut t.read_limiter, 1);
        generate_key(t.rand.next_u64() % f.num, sh.key_size, &mut key);
        read += 1;
        // The value stays in the engine, unread, as db_bench's does: copying a 16 KB value
        // out was 4-7 % of a 16 KB readrandom's samples, a cost db_bench does not pay.
        if let Some(len) = sh.db.get_len(&key)? {
            found += 1;
            bytes += (key.len() + len) as u64;
        }
        t.stats.finished_ops(1, OpType::Read);
    }
    t.stats.add_reads(read, found, bytes);
    t.stats.message = format!("({found} of {read} found)\n");
    Ok(())
}

fn read_scan(sh: &Shared<'_>, t: &mut ThreadState, reverse: bool) -> CliResult<()> {
    let mut it = sh.db.iter()?;
    if reverse {
        it.seek_to_last();
    } else {
        it.seek_to_first();
    }
    let limit = sh.flags.reads_per_thread();
    let (mut i, mut bytes) = (0u64, 0u64);
    while i < limit && it.valid() {
        rate_limit::request(&mut t.read_limiter, 1);
        bytes += (it.key().len() + it.value().len()) as u64;
        t.stats.finished_ops(1, OpType::Read);
        i += 1;
        if reverse {
            it.prev();
        } else {
            it.next();
        }
    }
    it.status()?;
    t.stats.add_reads(i, i, bytes);
    Ok(())
}

/// readseq: up to `--reads` entries from the first key on.
pub fn read_seq(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    read_scan(sh, t, false)
}

/// readreverse: up to `--reads` entries from the last key back.
pub fn read_reverse(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    read_scan(sh, t, true)
}

/// seekrandom: `--reads` seeks to `Next() % num` keys, each followed by `--seek_nexts` steps.
pub fn seek_random(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    let f = sh.flags;
    let mut key = Vec::with_capacity(sh.key_size);
    let (mut read, mut found, mut bytes) = (0u64, 0u64, 0u64);
    let mut budget = OpBudget::new(f.reads_per_thread(), f.duration);
    while budget.take(1) {
        rate_limit::request(&mut t.read_limiter, 1);
        generate_key(t.rand.next_u64() % f.num, sh.key_size, &mut key);
        // As db_bench without a tailing iterator: a new iterator per seek.
        let mut it = sh.db.iter()?;
        // As db_bench's --reverse_iterator: the last key at or before the target, then back.
        if f.reverse_iterator {
            it.seek_for_prev(&key);
        } else {
            it.seek(&key);
        }
        read += 1;
        if it.valid() && it.key() == key.as_slice() {
            found += 1;
        }
        for _ in 0..f.seek_nexts {
            if !it.valid() {
                break;
            }
            bytes += (it.key().len() + it.value().len()) as u64;
            if f.reverse_iterator {
                it.prev();
            } else {
                it.next();
            }
        }
        it.status()?;
        t.stats.finished_ops(1, OpType::Seek);
    }
    t.stats.add_reads(read, found, bytes);
    t.stats.message = format!("({found} of {read} found)\n");
    Ok(())
}

/// The writer of readwhilewriting: random puts until every reader is done; left out of the
/// merged figures, as db_bench's `BGWriter`.
pub fn background_writer(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    let f = sh.flags;
    t.stats.exclude_from_merge = true;
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = Vec::with_capacity(sh.key_size);
    let mut bytes = 0;
    let mut batch = sh.db.writer();
    while sh.num_done.load(Ordering::Acquire) + 1 < sh.num_threads {
        rate_limit::request(&mut t.write_limiter, (sh.key_size + f.value_size) as u64);
        generate_key(t.rand.next_u64() % f.num, sh.key_size, &mut key);
        batch.put(&key, values.generate(f.value_size));
        batch.commit()?;
        bytes += (sh.key_size + f.value_size) as u64;
        t.stats.finished_ops(1, OpType::Write);
    }
    t.stats.bytes += bytes;
    t.stats.client_bytes_written += bytes;
    Ok(())
}

/// readwhilewriting: thread 0 writes, the others run readrandom.
pub fn read_while_writing(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    if t.tid == 0 {
        background_writer(sh, t)
    } else {
        read_random(sh, t)
    }
}

/// seekrandomwhilewriting: thread 0 writes, the others run seekrandom.
pub fn seek_while_writing(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    if t.tid == 0 {
        background_writer(sh, t)
    } else {
        seek_random(sh, t)
    }
}

/// readrandomwriterandom: `--readwritepercent` % gets, the rest puts, over `Next() % num` keys;
/// per thread max(`--reads`, `--writes`) operations, or `--num` when both are negative.
pub fn read_random_write_random(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    let f = sh.flags;
    let total = if f.reads < 0 && f.writes < 0 {
        f.num
    } else {
        f.reads.max(f.writes).max(0) as u64
    };
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = Vec::with_capacity(sh.key_size);
    let mut value = Vec::new();
    let mut batch = sh.db.writer();
    let (mut reads, mut writes, mut found) = (0u64, 0u64, 0u64);
    let (mut get_weight, mut put_weight) = (0u32, 0u32);
    let mut budget = OpBudget::new(total, f.duration);
    while budget.take(1) {
        generate_key(t.rand.next_u64() % f.num, sh.key_size, &mut key);
        if get_weight == 0 && put_weight == 0 {
            get_weight = f.readwritepercent;
            put_weight = 100 - get_weight;
        }
        if get_weight > 0 {
            rate_limit::request(&mut t.read_limiter, 1);
            if sh.db.get(&key, &mut value)? {
                found += 1;
                t.stats.client_bytes_returned += (key.len() + value.len()) as u64;
            }
            get_weight -= 1;
            reads += 1;
            t.stats.finished_ops(1, OpType::Read);
        } else {
            rate_limit::request(&mut t.write_limiter, (sh.key_size + f.value_size) as u64);
            batch.put(&key, values.generate(f.value_size));
            batch.commit()?;
            t.stats.client_bytes_written += (sh.key_size + f.value_size) as u64;
            put_weight -= 1;
            writes += 1;
            t.stats.finished_ops(1, OpType::Write);
        }
    }
    t.stats.reads += reads;
    t.stats.found += found;
    t.stats.message = format!("( reads:{reads} writes:{writes} total:{total} found:{found})");
    Ok(())
}

/// flush: one memtable flush.
pub fn flush(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    sh.db.flush()?;
    t.stats.finished_ops(1, OpType::Write);
    Ok(())
}

/// compact: a full manual compaction.
pub fn compact(sh: &Shared<'_>, t: &mut ThreadState) -> CliResult<()> {
    sh.db.compact_all()?;
    t.stats.finished_ops(1, OpType::Write);
    Ok(())
}
