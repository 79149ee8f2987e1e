//! The plans in `experiments/` read with the verdict rules: every plan parses and checks, and
//! the claims whose seed states a bound, a size or only a direction are decided as such.

use super::{Judged, Rule};
use crate::plan::claims::Relation;
use crate::plan::spec::Plan;
use std::path::Path;

fn plan(name: &str) -> Plan {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    Plan::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rule(p: &Plan, claim: usize) -> Rule {
    Rule::of(&p.claim[claim - 1])
}

#[test]
fn every_plan_parses_and_its_claims_are_sizes_bounds_or_directions_as_the_seed_says() {
    for name in [
        "quick.toml",
        "seed000.toml",
        "seed001.toml",
        "seed002.toml",
        "seed003.toml",
        "seed003-engines.toml",
        "seed004.toml",
        "design-space.toml",
        "design-space-monkey.toml",
    ] {
        let p = plan(name);
        for (i, c) in p.claim.iter().enumerate() {
            let r = Rule::of(c);
            assert!(r.e > 0.0 && r.e < 0.2, "{name} claim {}: {}", i + 1, r.e);
        }
    }
    let s3 = plan("seed003.toml");
    // "4.81 times lower": a size; its figures of issue 52 are no effect (a counter, 1 %).
    let six = rule(&s3, 6);
    assert!(matches!(six.judged, Judged::Size { seed, .. } if seed == 0.208));
    assert_eq!(six.verdict(0.999, 0.999), super::Verdict::NoEffect);
    // "at most 2.04 times": a bound, in each workload.
    for c in [8, 18] {
        assert_eq!(rule(&s3, c).rel, Relation::AtMost, "claim {c}");
        assert_eq!(s3.claim[c - 1].each.as_deref(), Some("workload"));
    }
    // "better in every case": the direction case by case, the average's size pooled.
    for c in [1, 12] {
        assert!(
            matches!(rule(&s3, c).judged, Judged::Direction),
            "claim {c}"
        );
    }
    for c in [20, 21] {
        assert!(
            matches!(rule(&s3, c).judged, Judged::Size { .. }),
            "claim {c}"
        );
    }
    // "more than 100 times", "up to 300 bytes", the issue's ≤ 0.2×: bounds.
    assert_eq!(rule(&plan("seed004.toml"), 6).rel, Relation::AtLeast);
    let ds = plan("design-space.toml");
    assert_eq!(rule(&ds, 2).rel, Relation::AtMost);
    assert_eq!(rule(&ds, 4).rel, Relation::AtMost);
    // Peak CPU in the seed, mean CPU measured: the direction only.
    assert!(matches!(
        rule(&plan("seed000.toml"), 5).judged,
        Judged::Direction
    ));
    // "under 0.3 % apart": the seed's bound, widened to a timing's 3 %.
    let q = rule(&plan("quick.toml"), 3);
    assert_eq!((q.rel, q.tol), (Relation::About, 0.03));
}

#[test]
fn a_plans_size_band_and_smallest_effect_reach_its_claims_and_bad_values_are_refused() {
    let base = "title = \"t\"\n[[steps]]\nbench = \"fillseq\"\n";
    let claims = "[[claim]]\nquote = \"q\"\nmetric = \"fillseq.ops_per_sec\"\nrelation = \"greater\"\nthan = 1\n\n[[claim]]\nquote = \"q\"\nmetric = \"fillseq.ops_per_sec\"\nrelation = \"greater\"\nthan = 1\nsmallest_effect = 0.1\nsize_band = 3\n";
    let p = Plan::parse(&format!(
        "size_band = 2\nsmallest_effect = 0.05\n{base}{claims}"
    ))
    .unwrap();
    assert_eq!(
        (p.claim[0].size_band(), p.claim[0].smallest_effect()),
        (2.0, 0.05)
    );
    assert_eq!(
        (p.claim[1].size_band(), p.claim[1].smallest_effect()),
        (3.0, 0.1)
    );
    let p = Plan::parse(&format!("{base}{claims}")).unwrap();
    assert_eq!(
        (p.claim[0].size_band(), p.claim[0].smallest_effect()),
        (1.5, 0.03)
    );
    for (top, expect) in [
        (
            "smallest_effect = 2\n",
            "smallest_effect: 2; allowed 0 to 1",
        ),
        ("size_band = 0.5\n", "size_band: 0.5; allowed 1 to 100"),
    ] {
        let e = Plan::parse(&format!("{top}{base}")).unwrap_err();
        assert!(e.0.contains(expect) && !e.0.contains('\n'), "{e}");
    }
}
