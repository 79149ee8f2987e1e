//! Expanding a plan's axes into cells, and the order the runs go in.
//!
//! A cell is one point of the product of the axes; a run is a cell on one engine in one
//! repetition. Repetition r runs every cell of every engine once, in an order shuffled from
//! the plan's seed and r, so that slow drift of the machine (heat, page cache, a neighbour)
//! spreads over all variants instead of landing on whichever ran last.

use super::spec::Plan;
use crate::text::value_text;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// One point of the matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Position in the expansion (the first axis varies slowest).
    pub index: usize,
    /// (axis, value) for every axis, in the plan's order.
    pub values: Vec<(String, String)>,
}

impl Cell {
    /// `c003`: the cell's stable name in run ids and file names.
    pub fn id(&self) -> String {
        format!("c{:03}", self.index)
    }

    /// `bloom_bits=10 use_ribbon_filter=true`, or `(base)` with no axes.
    pub fn label(&self) -> String {
        if self.values.is_empty() {
            return "(base)".to_string();
        }
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The value of `axis` in this cell.
    pub fn get(&self, axis: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == axis)
            .map(|(_, v)| v.as_str())
    }
}

/// Every cell of the plan's matrix (one cell with no values when there are no axes).
pub fn expand(plan: &Plan) -> Vec<Cell> {
    let mut points: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (axis, values) in &plan.matrix {
        let values = values.as_array().cloned().unwrap_or_default();
        let mut next = Vec::with_capacity(points.len() * values.len());
        for p in &points {
            for v in &values {
                let mut q = p.clone();
                q.push((axis.clone(), value_text(v)));
                next.push(q);
            }
        }
        points = next;
    }
    points
        .into_iter()
        .enumerate()
        .map(|(index, values)| Cell { index, values })
        .collect()
}

/// One run: a cell on an engine in a repetition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunKey {
    /// Cell index.
    pub cell: usize,
    /// Engine name.
    pub engine: String,
    /// Repetition, from 0.
    pub rep: u32,
}

impl RunKey {
    /// `c003-rocksdb-r2`: the run's directory name.
    pub fn id(&self) -> String {
        format!("c{:03}-{}-r{}", self.cell, self.engine, self.rep)
    }
}

/// splitmix64: a tiny, well-mixed generator, enough to shuffle a run order reproducibly.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The runs of `cells` (only those `keep` accepts) × engines × repetitions, repetition by
/// repetition, each repetition in its own seeded shuffle.
pub fn order(
    cells: &[Cell],
    engines: &[String],
    repetitions: u32,
    seed: u64,
    keep: impl Fn(usize) -> bool,
) -> Vec<RunKey> {
    let mut out = Vec::new();
    for rep in 0..repetitions {
        let mut block: Vec<RunKey> = cells
            .iter()
            .filter(|c| keep(c.index))
            .flat_map(|c| {
                engines.iter().map(move |e| RunKey {
                    cell: c.index,
                    engine: e.clone(),
                    rep,
                })
            })
            .collect();
        let mut rng = SplitMix(seed ^ (u64::from(rep) + 1).wrapping_mul(0xA24B_AED4_963E_E407));
        for i in (1..block.len()).rev() {
            let j = rng.below(i + 1);
            block.swap(i, j);
        }
        out.extend(block);
    }
    out
}

/// The cell as the load steps see it: without `load.skip_axes`.
pub fn load_cell(plan: &Plan, cell: &Cell) -> Cell {
    let skip = plan
        .load
        .as_ref()
        .map(|l| l.skip_axes.as_slice())
        .unwrap_or(&[]);
    Cell {
        index: cell.index,
        values: cell
            .values
            .iter()
            .filter(|(k, _)| !skip.contains(k))
            .cloned()
            .collect(),
    }
}

/// The cell whose settings step `i` runs with: the load cell for a load step.
pub fn step_cell<'c>(plan: &Plan, cell: &'c Cell, i: usize) -> Cow<'c, Cell> {
    match &plan.load {
        Some(l) if i < l.steps => Cow::Owned(load_cell(plan, cell)),
        _ => Cow::Borrowed(cell),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(axes: &str) -> Plan {
        Plan::parse(&format!(
            "title = \"t\"\n[[steps]]\nbench = \"fillseq\"\n[matrix]\n{axes}"
        ))
        .unwrap()
    }

    #[test]
    fn product_in_plan_order_first_axis_slowest() {
        let p = plan("value_size = [1024, 4096]\nuse_ribbon_filter = [false, true]\n");
        let cells = expand(&p);
        let labels: Vec<String> = cells.iter().map(Cell::label).collect();
        assert_eq!(
            labels,
            [
                "value_size=1024 use_ribbon_filter=false",
                "value_size=1024 use_ribbon_filter=true",
                "value_size=4096 use_ribbon_filter=false",
                "value_size=4096 use_ribbon_filter=true",
            ]
        );
        assert_eq!(cells[3].id(), "c003");
        assert_eq!(cells[2].get("value_size"), Some("4096"));
    }

    #[test]
    fn no_axes_is_one_base_cell() {
        let p = Plan::parse("title = \"t\"\n[[steps]]\nbench = \"fillseq\"\n").unwrap();
        let cells = expand(&p);
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].label(), "(base)");
    }

    #[test]
    fn order_is_a_seeded_shuffle_within_each_repetition() {
        let p = plan("bloom_bits = [0, 5, 10, 15, 20]\n");
        let cells = expand(&p);
        let engines = vec!["lsmlab".to_string(), "rocksdb".to_string()];
        let a = order(&cells, &engines, 3, 7, |_| true);
        assert_eq!(
            a,
            order(&cells, &engines, 3, 7, |_| true),
            "same seed, same order"
        );
        assert_ne!(
            a,
            order(&cells, &engines, 3, 8, |_| true),
            "another seed, another order"
        );
        assert_eq!(a.len(), 30);
        for (r, block) in a.chunks(10).enumerate() {
            // Each repetition holds every (cell, engine) exactly once.
            assert!(block.iter().all(|k| k.rep == r as u32));
            let mut ids: Vec<(usize, String)> =
                block.iter().map(|k| (k.cell, k.engine.clone())).collect();
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), 10);
        }
        // Shuffled: not the expansion order in every block.
        let plain: Vec<usize> = (0..10).map(|i| i / 2).collect();
        assert!(a
            .chunks(10)
            .any(|b| b.iter().map(|k| k.cell).collect::<Vec<_>>() != plain));
    }

    #[test]
    fn keep_filters_cells() {
        let p = plan("bloom_bits = [0, 5, 10]\n");
        let cells = expand(&p);
        let runs = order(&cells, &["lsmlab".to_string()], 2, 1, |c| c == 1);
        assert_eq!(runs.len(), 2);
        assert!(runs.iter().all(|k| k.cell == 1));
        assert_eq!(runs[1].id(), "c001-lsmlab-r1");
    }
}
