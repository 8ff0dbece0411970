//! The seccomp baseline of every sandboxed process: the worker and each run.
//!
//! A fragment never needs to trace or write another process, to make
//! namespaces, to mount, to load BPF or kernel modules, to use io_uring or
//! the kernel keyring, and without these the known ways for a run to reach
//! the worker that serves later runs (`ptrace`, `process_vm_writev`,
//! `pidfd_getfd`) or to widen its own sandbox are closed. Denied calls fail
//! with `EPERM`, as on a system where they are not permitted, so libraries
//! that probe for them fall back.
//!
//! Three programs, stacked (the kernel applies the strictest answer):
//! 1. the deny list (`EPERM`), built with `seccompiler`;
//! 2. `clone3` answers `ENOSYS`: its flags live in memory a filter cannot
//!    read, and glibc falls back to `clone` (whose flags it can) on ENOSYS;
//! 3. on x86_64, system calls of the x32 ABI (numbers with bit 30 set) get
//!    `ENOSYS`: they share the x86_64 audit arch, so the deny list alone
//!    would not see `ptrace` called through them. `seccompiler` has no rule
//!    for a range of numbers, so this one is three instructions by hand.
//!
//! seccompiler's programs start with an architecture check that kills a
//! process making system calls of another ABI (i386 `int 0x80`).

use seccompiler::{
    sock_filter, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// System calls no run may make.
fn denied() -> Vec<i64> {
    let mut v: Vec<libc::c_long> = vec![
        // other processes
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_pidfd_getfd,
        libc::SYS_kcmp,
        // namespaces and mounts
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        // kernel attack surface a script never needs
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_open_by_handle_at,
        libc::SYS_fanotify_init,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
        libc::SYS_quotactl,
        libc::SYS_syslog,
        libc::SYS_vhangup,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_clock_adjtime,
        libc::SYS_adjtimex,
        // System V IPC objects outlive the processes that made them (they
        // live in the worker's IPC namespace): one run could leave a segment
        // a later run attaches to. POSIX shared memory and semaphores
        // (/dev/shm) stay available and are wiped after each run.
        libc::SYS_shmget,
        libc::SYS_semget,
        libc::SYS_msgget,
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([libc::SYS_iopl, libc::SYS_ioperm, libc::SYS_uselib]);
    v.into_iter().map(i64::from).collect()
}

/// `clone` flags that make a namespace (CLONE_NEWTIME shares its bit with
/// the exit signal in `clone`, and `unshare` is denied whole).
const NAMESPACE_FLAGS: [u64; 7] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
];

/// Why the baseline could not be built (an architecture seccompiler does
/// not know): the run goes on without it and the report says so.
#[derive(Debug, thiserror::Error)]
#[error("no seccomp filter for this machine: {0}")]
pub struct SeccompUnavailable(String);

fn arch() -> Result<TargetArch, SeccompUnavailable> {
    std::env::consts::ARCH.try_into().map_err(|e| SeccompUnavailable(format!("{e:?}")))
}

/// The compiled programs, to be installed together.
pub fn baseline() -> Result<Vec<BpfProgram>, SeccompUnavailable> {
    let arch = arch()?;
    let fail = |e: seccompiler::BackendError| SeccompUnavailable(e.to_string());
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = denied().into_iter().map(|nr| (nr, Vec::new())).collect();
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| {
            let cond = SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(flag), flag)?;
            SeccompRule::new(vec![cond])
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    rules.insert(libc::SYS_clone as i64, clone_rules);
    let deny = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch).map_err(fail)?;
    let clone3: BTreeMap<i64, Vec<SeccompRule>> = [(libc::SYS_clone3 as i64, Vec::new())].into_iter().collect();
    let clone3 = SeccompFilter::new(clone3, SeccompAction::Allow, SeccompAction::Errno(libc::ENOSYS as u32), arch).map_err(fail)?;
    let mut out: Vec<BpfProgram> = vec![deny.try_into().map_err(fail)?, clone3.try_into().map_err(fail)?];
    if std::env::consts::ARCH == "x86_64" {
        out.push(x32_denied());
    }
    Ok(out)
}

/// Offsets in `struct seccomp_data`.
const DATA_NR: u32 = 0;
const DATA_ARCH: u32 = 4;
const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

fn stmt(code: u32, k: u32) -> sock_filter {
    sock_filter { code: code as u16, jt: 0, jf: 0, k }
}

fn jump(code: u32, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code: code as u16, jt, jf, k }
}

/// x86_64 system calls through the x32 ABI answer ENOSYS.
fn x32_denied() -> BpfProgram {
    use libc::{BPF_ABS, BPF_JEQ, BPF_JGE, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W};
    vec![
        stmt(BPF_LD | BPF_W | BPF_ABS, DATA_ARCH),
        jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
        stmt(BPF_LD | BPF_W | BPF_ABS, DATA_NR),
        jump(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 0, 1),
        stmt(BPF_RET | BPF_K, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        stmt(BPF_RET | BPF_K, libc::SECCOMP_RET_ALLOW),
    ]
}

/// A program as the bytes bubblewrap's `--add-seccomp-fd` reads (an array
/// of `struct sock_filter`, native byte order).
pub fn to_bytes(p: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len() * 8);
    for ins in p {
        out.extend_from_slice(&ins.code.to_ne_bytes());
        out.push(ins.jt);
        out.push(ins.jf);
        out.extend_from_slice(&ins.k.to_ne_bytes());
    }
    out
}

/// Install `programs` in the calling process (no bubblewrap: called in the
/// worker's `pre_exec`, so only async-signal-safe calls, no allocation).
///
/// # Safety
/// Must be called in a single-threaded child between fork and exec.
pub unsafe fn install(programs: &[BpfProgram]) -> i32 {
    #[repr(C)]
    struct SockFprog {
        len: libc::c_ushort,
        filter: *const sock_filter,
    }
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
        return -1;
    }
    for p in programs {
        let prog = SockFprog { len: p.len() as libc::c_ushort, filter: p.as_ptr() };
        if libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0, &prog as *const SockFprog) != 0 {
            return -1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_compiles_for_this_machine() {
        let progs = baseline().expect("x86_64 and aarch64 are supported");
        assert!(progs.len() >= 2);
        for p in &progs {
            assert!(!p.is_empty() && p.len() < 4096, "a BPF program holds at most 4096 instructions");
            assert_eq!(to_bytes(p).len(), p.len() * 8);
        }
    }

    #[test]
    fn the_deny_list_names_the_calls_the_threat_model_names() {
        let d = denied();
        for nr in [libc::SYS_ptrace, libc::SYS_process_vm_writev, libc::SYS_io_uring_setup, libc::SYS_unshare, libc::SYS_mount, libc::SYS_bpf, libc::SYS_perf_event_open, libc::SYS_keyctl, libc::SYS_kexec_load] {
            assert!(d.contains(&(nr as i64)), "{nr} is not denied");
        }
        // what every program needs stays allowed
        for nr in [libc::SYS_read, libc::SYS_write, libc::SYS_openat, libc::SYS_mmap, libc::SYS_wait4, libc::SYS_kill, libc::SYS_clone] {
            assert!(!d.contains(&(nr as i64)), "{nr} must stay allowed");
        }
    }

    #[test]
    fn x32_filter_jumps_stay_inside_the_program() {
        let p = x32_denied();
        for (i, ins) in p.iter().enumerate() {
            if ins.code as u32 & 0x07 == libc::BPF_JMP {
                assert!(i + 1 + (ins.jt as usize) < p.len() && i + 1 + (ins.jf as usize) < p.len());
            }
        }
        assert_eq!(p.last().unwrap().k, libc::SECCOMP_RET_ALLOW);
    }
}
