// precompiled_tests.h — the tests' precompiled header: the tool's (precompiled.h) and
// GoogleTest, which every test file includes (tests/CMakeLists.txt).
#pragma once

#include <gtest/gtest.h>

#include "precompiled.h"
