//! Which of a plan's engines run it: each is checked on every step of every cell before
//! anything runs. A required engine that cannot run a step stops the study with the reason; an
//! optional one (`optional_engines`) is left out of this plan with a one-line note, as when it
//! is not installed.

use super::engines::Engine;
use crate::plan::matrix::Cell;
use crate::plan::spec::Plan;
use lsmlab_drivers::error::{CliError, CliResult};

/// The engines that can run every step, with the skipped optional ones removed from
/// `plan.engines` too; the notes of the skipped ones go to `note`.
pub fn keep(
    plan: &mut Plan,
    engines: Vec<Engine>,
    cells: &[Cell],
    note: &mut dyn FnMut(String),
) -> CliResult<Vec<Engine>> {
    let mut kept = Vec::new();
    for e in engines {
        match e.check(plan, cells) {
            Ok(()) => kept.push(e),
            Err(why) if plan.optional_engines.contains(&e.name) => {
                note(format!("optional {why}: the study runs without it"));
                plan.engines.retain(|n| *n != e.name);
            }
            Err(why) => return Err(why),
        }
    }
    if kept.is_empty() {
        return Err(CliError::new(
            "engines: none of the plan's engines can run its steps here",
        ));
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::matrix::expand;
    use std::path::Path;

    fn plan(engines: &str, optional: &str) -> Plan {
        Plan::parse(&format!(
            "title = \"t\"\nengines = [{engines}]\noptional_engines = [{optional}]\n[[steps]]\nbench = \"fillrandom,waitforcompaction\"\n"
        ))
        .unwrap()
    }

    fn engines(p: &Plan) -> Vec<Engine> {
        let mut p = p.clone();
        // LevelDB found as a program that need not exist: the check reads no binary.
        p.engine.entry("leveldb".into()).or_default().binary = Some("/bin/true".into());
        p.engines
            .iter()
            .chain(&p.optional_engines)
            .map(|n| Engine::resolve(&p, n, Path::new("/bin/true"), Path::new("/")).unwrap())
            .collect()
    }

    #[test]
    fn an_optional_engine_that_cannot_run_a_step_is_left_out_with_a_note() {
        // LevelDB's db_bench has no waitforcompaction benchmark.
        let mut p = plan("\"lsmlab\"", "\"leveldb\"");
        let all = engines(&p);
        p.engines.push("leveldb".into());
        let cells = expand(&p);
        let mut notes = Vec::new();
        let kept = keep(&mut p, all, &cells, &mut |n| notes.push(n)).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].name, "lsmlab");
        assert_eq!(p.engines, ["lsmlab"]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("leveldb") && notes[0].contains("waitforcompaction"),
            "{}",
            notes[0]
        );
        assert!(!notes[0].contains('\n'));
        // Required, the same engine stops the study.
        let mut p = plan("\"lsmlab\", \"leveldb\"", "");
        let all = engines(&p);
        let cells = expand(&p);
        let e = keep(&mut p, all, &cells, &mut |_| {}).unwrap_err();
        assert!(e.0.contains("waitforcompaction"), "{e}");
    }
}
