//! Which runs of a batch must run together, on one node, in the study's order: the runs that a
//! claim's ratio pairs. A claim `ratio = { axis, a, b }` pairs, in each repetition, the cell
//! with `axis = a` and the cell with `axis = b` that agree on every other axis; cells linked by
//! any chain of such pairs form one group, with every engine's runs of them (a ratio may be of
//! two engines). Without claims, the axes the report compares (`compare`, default every axis)
//! link cells that differ only in one of them, with any two values.

use crate::plan::matrix::{Cell, RunKey};
use crate::plan::spec::Plan;
use crate::text::value_text;

/// A link between cells: they differ only in `axis`, one with value `a`, the other `b`
/// (`None`: any two values).
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The axis.
    pub axis: String,
    /// The two values, when the link is of two values only.
    pub values: Option<(String, String)>,
}

/// The links of `plan`: its claims' ratios, else its compared axes.
pub fn links(plan: &Plan) -> Vec<Link> {
    if !plan.claim.is_empty() {
        return plan
            .claim
            .iter()
            .filter_map(|c| c.ratio.as_ref())
            .filter(|r| r.axis != "engine")
            .map(|r| Link {
                axis: r.axis.clone(),
                values: Some((value_text(&r.a), value_text(&r.b))),
            })
            .collect();
    }
    let axes: Vec<String> = match &plan.compare {
        Some(axes) => axes.clone(),
        None => plan.matrix.keys().cloned().collect(),
    };
    axes.into_iter()
        .map(|axis| Link { axis, values: None })
        .collect()
}

/// Whether `link` pairs cells `x` and `y`.
fn linked(link: &Link, x: &Cell, y: &Cell) -> bool {
    let mut differs = x.values.iter().zip(&y.values).filter(|(p, q)| p != q);
    let Some(((axis, vx), (_, vy))) = differs.next() else {
        return false;
    };
    if differs.next().is_some() || *axis != link.axis {
        return false;
    }
    match &link.values {
        None => true,
        Some((a, b)) => (vx == a && vy == b) || (vx == b && vy == a),
    }
}

/// The group of each cell (cells linked by a chain of links share one), by union–find.
fn cell_groups(cells: &[Cell], links: &[Link]) -> Vec<usize> {
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut parent: Vec<usize> = (0..cells.len()).collect();
    for i in 0..cells.len() {
        for j in i + 1..cells.len() {
            if links.iter().any(|l| linked(l, &cells[i], &cells[j])) {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                parent[ri.max(rj)] = ri.min(rj);
            }
        }
    }
    (0..cells.len()).map(|i| root(&mut parent, i)).collect()
}

/// `batch` (runs with their positions in the study's order) in groups that must run together:
/// one per repetition and group of linked cells, each in the batch's order, the groups in the
/// order of their first runs.
pub fn groups(
    batch: &[(usize, RunKey)],
    cells: &[Cell],
    links: &[Link],
) -> Vec<Vec<(usize, RunKey)>> {
    let of_cell = cell_groups(cells, links);
    let mut keys: Vec<(u32, usize)> = Vec::new();
    let mut out: Vec<Vec<(usize, RunKey)>> = Vec::new();
    for (pos, key) in batch {
        let k = (key.rep, of_cell.get(key.cell).copied().unwrap_or(key.cell));
        match keys.iter().position(|x| *x == k) {
            Some(i) => out[i].push((*pos, key.clone())),
            None => {
                keys.push(k);
                out.push(vec![(*pos, key.clone())]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells of `bits` × `ribbon` (the first axis slowest, as the matrix expands them).
    fn cells(bits: &[&str], ribbon: &[&str]) -> Vec<Cell> {
        let mut out = Vec::new();
        for b in bits {
            for r in ribbon {
                out.push(Cell {
                    index: out.len(),
                    values: vec![
                        ("bits".into(), b.to_string()),
                        ("ribbon".into(), r.to_string()),
                    ],
                });
            }
        }
        out
    }

    fn key(cell: usize, engine: &str, rep: u32) -> RunKey {
        RunKey {
            cell,
            engine: engine.into(),
            rep,
        }
    }

    fn ids(g: &[Vec<(usize, RunKey)>]) -> Vec<Vec<String>> {
        g.iter()
            .map(|g| g.iter().map(|(_, k)| k.id()).collect())
            .collect()
    }

    fn link(axis: &str, a: &str, b: &str) -> Link {
        Link {
            axis: axis.into(),
            values: Some((a.into(), b.into())),
        }
    }

    #[test]
    fn a_claims_pairs_and_their_chains_group_cells_within_a_repetition() {
        // bits 5, 10, 15 × ribbon false, true: c000 5/f c001 5/t c002 10/f c003 10/t c004 15/f
        // c005 15/t. Ribbon against Bloom at every bits; 15 against 5 bits with Bloom.
        let cells = cells(&["5", "10", "15"], &["false", "true"]);
        let links = [link("ribbon", "true", "false"), link("bits", "15", "5")];
        let batch: Vec<(usize, RunKey)> = [(4, 0), (2, 0), (1, 0), (3, 0), (0, 0), (5, 0), (2, 1)]
            .iter()
            .enumerate()
            .map(|(i, &(cell, rep))| (10 + i, key(cell, "lsmlab", rep)))
            .collect();
        let g = groups(&batch, &cells, &links);
        assert_eq!(
            ids(&g),
            [
                // 15/f pairs with 5/f (bits) and 15/t (ribbon); 5/f with 5/t.
                vec![
                    "c004-lsmlab-r0",
                    "c001-lsmlab-r0",
                    "c000-lsmlab-r0",
                    "c005-lsmlab-r0"
                ],
                vec!["c002-lsmlab-r0", "c003-lsmlab-r0"],
                vec!["c002-lsmlab-r1"],
            ]
        );
        // Positions in the study's order are kept with each run.
        assert_eq!(g[0][1].0, 12);
    }

    #[test]
    fn engines_share_a_group_and_an_axis_without_values_links_all_of_its_values() {
        let one_ribbon = cells(&["5", "10"], &["false"]);
        let batch = vec![
            (0, key(0, "lsmlab", 0)),
            (1, key(0, "rocksdb", 0)),
            (2, key(1, "rocksdb", 0)),
        ];
        let by_ribbon = groups(&batch, &one_ribbon, &[link("ribbon", "true", "false")]);
        assert_eq!(
            ids(&by_ribbon),
            [
                vec!["c000-lsmlab-r0", "c000-rocksdb-r0"],
                vec!["c001-rocksdb-r0"]
            ]
        );
        let every_bits = [Link {
            axis: "bits".into(),
            values: None,
        }];
        assert_eq!(groups(&batch, &one_ribbon, &every_bits).len(), 1);
        // Cells that differ in two axes are never linked directly.
        let two = cells(&["5", "10"], &["false", "true"]);
        assert!(!linked(&link("bits", "10", "5"), &two[0], &two[3]));
    }
}
