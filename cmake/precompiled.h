// precompiled.h — the heavy headers most of src/ includes, compiled once per build tree
// (CMake's target_precompile_headers: src/CMakeLists.txt) instead of once per source file.
// Measured before it (docs/development.md, "Build time"): nlohmann/json and fmt alone were
// most of the front end's time in a cold compile of the tool. Only third-party and standard
// headers belong here: a project header would rebuild every file when it changes. Every
// source still includes what it uses (a build with -DPQC_PCH=OFF must compile too).
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>
