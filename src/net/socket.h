// socket — the TCP calls shared by the embedded server and the load generator. Every socket is
// non-blocking and close-on-exec from birth (the event loop never blocks; child processes such
// as nginx must not inherit them) and is owned by a ScopedFd from the moment it exists.
// Errors name the call, the address and the errno text, since the CLI prints them as they are.
#pragma once

#include "core/error.h"
#include "core/fd.h"
#include "net/address.h"

namespace pqc {

// ListenTcp: bound, listening, non-blocking socket with SO_REUSEADDR (restarts between trials
// must not wait for TIME_WAIT). reuse_port adds SO_REUSEPORT so that one listener per thread
// lets the kernel spread connections across event loops.
Result<ScopedFd> ListenTcp(const SocketAddress& addr, int backlog, bool reuse_port);

// ConnectTcpNonBlocking: starts a connection; success means "in progress or done", and the
// caller learns the outcome from writability plus SocketError. TCP_NODELAY is set because a
// handshake is a sequence of small flights that Nagle would delay. If connect itself fails at
// once (loopback can refuse synchronously), *connect_errno (when given) receives the errno so
// that the caller can record it as an error class without parsing the message.
// BindUdp: a non-blocking UDP socket bound to `addr` (port 0: an ephemeral one), for a QUIC
// server; `reuse_port` lets several threads' sockets share the port.
Result<ScopedFd> BindUdp(const SocketAddress& addr, bool reuse_port);
// ConnectUdp: a non-blocking UDP socket connected to `addr`, for one QUIC client connection:
// the kernel then drops datagrams from anyone else and gives it an ephemeral port of its own.
Result<ScopedFd> ConnectUdp(const SocketAddress& addr);

Result<ScopedFd> ConnectTcpNonBlocking(const SocketAddress& addr, int* connect_errno = nullptr);

// AcceptNonBlocking: one pending connection, non-blocking and close-on-exec. An invalid
// ScopedFd (no error) means nothing is pending (EAGAIN): stop accepting until the next
// readiness. Aborted handshakes and signals are retried inside; EMFILE and the like are
// errors, which the caller must handle by pausing accept (a level-triggered loop would spin).
Result<ScopedFd> AcceptNonBlocking(int listen_fd, SocketAddress* peer = nullptr);

// SocketError: the pending error of a socket (SO_ERROR; reading clears it), 0 if none. This is
// how a non-blocking connect reports refusal. If getsockopt itself fails, its errno.
int SocketError(int fd);

// LocalAddress: the bound address, e.g. to learn the ephemeral port after listening on :0.
Result<SocketAddress> LocalAddress(int fd);

// SetNoDelay: disables Nagle's algorithm (see ConnectTcpNonBlocking); servers call it on
// accepted sockets.
Status SetNoDelay(int fd);

}  // namespace pqc
