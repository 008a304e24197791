// command — what every subcommand shares: its entry signature (dispatched from main's table)
// and the one place an Error is printed and turned into an exit status.
#pragma once

#include <CLI/CLI.hpp>

#include "core/error.h"

namespace pqc::cli {

// Exit statuses: 0 success; 1 the measurement ran but failed a check (invalid result);
// 2 bad usage or input; 3 the environment or a dependency failed.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitFailure = 3;

// ReportError: prints "pqc-bench <command>: error: <message>" once, returns the exit status.
int ReportError(const char* command, const Error& error);

// ParseArgs: CLI11 parsing with our exit statuses; returns -1 to continue, else the status.
int ParseArgs(CLI::App& app, int argc, char** argv);

int ProbeMain(int argc, char** argv);
int ServeMain(int argc, char** argv);
int CertsMain(int argc, char** argv);
int LoadMain(int argc, char** argv);
int RunMain(int argc, char** argv);
int ReportMain(int argc, char** argv);
int SpeedMain(int argc, char** argv);
int LinkMain(int argc, char** argv);
int CompareMain(int argc, char** argv);
int MergeMain(int argc, char** argv);
int CountMain(int argc, char** argv);

}  // namespace pqc::cli
