// instruction_window — the measured window of `pqc-bench count` in a process that runs under
// callgrind (valgrind's instruction counter): its costs are zeroed when the window opens and
// written to a dump file when it closes, so that start-up, certificate loading and warm-up
// connections stay out of the count. Client requests (valgrind/callgrind.h) cost a few
// instructions and do nothing outside valgrind, so these calls are safe in any process.
#pragma once

#include <string>

namespace pqc {

// CallgrindAvailable: whether this build has valgrind's client-request header (the set-up
// installs Debian's valgrind package); without it the window calls do nothing.
bool CallgrindAvailable();
// UnderCallgrind: whether this process runs under valgrind now.
bool UnderCallgrind();
// ZeroInstructionCounts: the window opens: every thread's costs so far are discarded.
void ZeroInstructionCounts();
// DumpInstructionCounts: the window closes: the costs since the last zero are written to the
// next dump file (OUT.1, OUT.2, … of --callgrind-out-file=OUT), labelled `label`.
void DumpInstructionCounts(const std::string& label);

}  // namespace pqc
