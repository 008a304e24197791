// user_namespace — the way to an emulated link without root: a user namespace in which this
// process is root (uid 0 mapped to the caller), with a private mount namespace so that its
// /run/netns is a tmpfs of its own. Whether it suffices depends on the machine: unprivileged
// user namespaces must be enabled and /dev/net/tun must be read-write for the caller; the
// error names the step that was refused.
#pragma once

#include "core/error.h"

namespace pqc::link {

// EnterUnprivilegedUserNamespace: must be called while the process has ONE thread (unshare of
// a user namespace refuses multi-threaded callers), e.g. first thing in a CLI command. After
// success, geteuid() is 0 in the new namespace and Link::Create can make namespaces; the
// mount namespace (and with it every namespace bind-mounted there) ends with the process, so
// nothing stale can remain.
Status EnterUnprivilegedUserNamespace();

}  // namespace pqc::link
