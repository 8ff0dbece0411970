//! The environment stage: the interpreter and tools, which imports need
//! which distributions, and isolated venvs (built with `uv`) that hold them.
//!
//! * [`find_toolchain`]: the real interpreter behind `python3`/`--python`,
//!   its version, and `uv`.
//! * [`stdlib_modules`] / [`EnvManager::stdlib_modules`]: the interpreter's
//!   standard-library names, asked once and cached on disk.
//! * [`plan_imports`]: pure classification of import paths into standard
//!   library, distributions to install, unknown (reported, never installed)
//!   and local (relative) imports.
//! * [`EnvManager::prepare`]: a venv per set of distributions under
//!   `<cache>/envs/<key>/`, reused across runs and safe across processes;
//!   [`EnvManager::prepare_constrained`] the same with version constraints
//!   (its own key), for the legacy environment.
//! * [`plan_legacy`]: pure decision whether a failure is an API mismatch with
//!   a library's newest release, and which older versions to try instead.
//! * [`optional_dependency`]: pure decision whether a library's error asks
//!   for a distribution it imports only on demand (`df.style` → Jinja2).
//! * [`EnvManager::installed_versions`]: what a venv holds, by version, as
//!   `uv pip list --format json` says (`installed` parses it).
//! * `contain`: how `uv` runs: a scrubbed environment, bubblewrap, an
//!   unprivileged uid as root ([`InstallerContainment`] says which).

mod contain;
mod error;
mod installed;
mod legacy;
mod optional;
mod plan;
mod process;
mod stdlib;
mod toolchain;
mod venv;

pub use contain::{is_secret_name, InstallerContainment, INSTALLER_UID};
pub use error::EnvError;
pub use legacy::{plan_legacy, LegacyPlan};
pub use optional::{optional_dependency, OptionalDependency};
pub use plan::{fragment_import_paths, plan_imports, ImportPlan};
pub use stdlib::stdlib_modules;
pub use toolchain::{find_toolchain, Toolchain};
pub use venv::{EnvManager, Environment};
