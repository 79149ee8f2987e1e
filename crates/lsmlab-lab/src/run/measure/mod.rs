//! What the machine and each step's process did: the environment recorded with the results, the
//! kernel's accounting of each child (`wait4`), once-a-second samples from /proc, and how much of
//! the machine something other than the study took, and the wait for a quiet device before each run.

pub mod environment;
pub mod outside_load;
pub mod process;
pub mod quiet_device;
pub mod rusage;
pub mod sampler;
