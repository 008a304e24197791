// callgrind_profile — a callgrind output file (valgrind's "Callgrind Format Specification",
// version 1) read into what `count` needs: each function's self cost and the call graph's
// inclusive costs, in instructions (Ir) and system calls (sysCount, from
// --collect-systime=yes). Positions (lines, addresses) and other events are read, checked for
// form and dropped: costs are summed per function.
//
// It reads what valgrind 3.19 writes by default: compressed names ("(id) name" at first use,
// "(id)" after; one id space for ob=/cob=, one for fl=/fi=/fe=/cfi=/cfl=/jfi=, one for
// fn=/cfn=/jfn=), compressed positions ("+N", "-N", "*"), cob=/cfi=/cfn= naming the target of
// the next calls= only. One part per file (valgrind writes a dump per file unless told
// otherwise). A file is untrusted input: anything else is an error naming the file, the line
// and what is wrong, and the sum of the self costs must equal the file's own totals — a
// truncated or altered file is refused rather than counted short.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace pqc::count {

// EventCosts: the two events `count` reports (the others are read and dropped).
struct EventCosts {
  uint64_t ir = 0;        // instructions executed (Ir)
  uint64_t syscalls = 0;  // system calls made (sysCount; 0 when the file has no such event)
};

// ProfileFunction: one per (object, name) — the same name in two objects is two functions.
struct ProfileFunction {
  std::string object;  // the ELF object (ob=), "" when the file names none
  std::string name;    // as callgrind writes it: demangled C++ with its parameter list
  EventCosts self;     // the cost of its own instructions, callees excluded
};

// ProfileCall: every call from `caller` to `callee` aggregated (indexes into functions);
// `inclusive` is the cost spent inside those calls, callee and everything below it.
struct ProfileCall {
  size_t caller = 0;
  size_t callee = 0;
  uint64_t calls = 0;
  EventCosts inclusive;
};

struct Profile {
  std::string command;  // the "cmd:" line
  std::vector<ProfileFunction> functions;
  std::vector<ProfileCall> calls;
  EventCosts totals;  // from "totals:", else "summary:"; equal to the sum of the self costs
};

// ParseCallgrind: `source_name` names the file in messages (ErrorKind::kConfig, "NAME:LINE:
// what is wrong").
Result<Profile> ParseCallgrind(std::string_view text, std::string_view source_name);

}  // namespace pqc::count
