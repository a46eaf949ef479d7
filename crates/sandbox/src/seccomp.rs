//! The syscall filter, codex's list: allow by default, `EPERM` for what a confined command
//! must never do (ptrace, reading or writing another process's memory, io_uring, which
//! bypasses seccomp, and mounting or unmounting anything) and, with the network off, for every socket call except on Unix
//! sockets. A process the filter blocks sees an ordinary `Operation not permitted`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Always denied. The mount calls too: the command shares the helper's mount namespace, where
/// a command run as root could otherwise unmount the read-only `.git` binds and the masks
/// over a hidden home.
const DENIED: [i64; 15] = [
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_mount_setattr,
];

/// Denied with the network off (`recvfrom` stays: tools read from Unix sockets with it).
const NETWORK: [i64; 13] = [
    libc::SYS_connect,
    libc::SYS_accept,
    libc::SYS_accept4,
    libc::SYS_bind,
    libc::SYS_listen,
    libc::SYS_getpeername,
    libc::SYS_getsockname,
    libc::SYS_shutdown,
    libc::SYS_sendto,
    libc::SYS_sendmmsg,
    libc::SYS_recvmmsg,
    libc::SYS_getsockopt,
    libc::SYS_setsockopt,
];

/// The compiled filter for this machine's architecture.
pub(crate) fn filter(network: bool) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|_| {
        format!(
            "seccomp: unsupported architecture {}",
            std::env::consts::ARCH
        )
    })?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for syscall in DENIED {
        rules.insert(syscall, Vec::new());
    }
    let family = |op, value: libc::c_int| -> Result<SeccompRule, String> {
        let value = u64::try_from(value).map_err(|err| err.to_string())?;
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, value)
            .and_then(|condition| SeccompRule::new(vec![condition]))
            .map_err(|err| format!("seccomp: {err}"))
    };
    if network {
        // VM sockets reach the hypervisor's host whatever the network namespace says.
        rules.insert(
            libc::SYS_socket,
            vec![family(SeccompCmpOp::Eq, libc::AF_VSOCK)?],
        );
    } else {
        for syscall in NETWORK {
            rules.insert(syscall, Vec::new());
        }
        for syscall in [libc::SYS_socket, libc::SYS_socketpair] {
            rules.insert(syscall, vec![family(SeccompCmpOp::Ne, libc::AF_UNIX)?]);
        }
    }
    let errno = u32::try_from(libc::EPERM).map_err(|err| err.to_string())?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno),
        arch,
    )
    .map_err(|err| format!("seccomp: {err}"))?;
    filter.try_into().map_err(|err| format!("seccomp: {err}"))
}

/// Installs the filter on the calling thread (the helper is single-threaded, and the
/// command inherits it). NO_NEW_PRIVS must be set already.
pub(crate) fn install(network: bool) -> Result<(), String> {
    let program = filter(network)?;
    seccompiler::apply_filter(&program).map_err(|err| format!("seccomp: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_filters_compile_here() {
        assert!(!filter(true).unwrap().is_empty());
        assert!(filter(false).unwrap().len() > filter(true).unwrap().len());
    }
}
