// replay_main — runs a fuzz target's LLVMFuzzerTestOneInput on every file of the folders
// (or files) given, so that the gcc release and ASan builds, which have no libFuzzer, replay
// each seed and every crash ever found as an ordinary CTest test. A failing input crashes
// this process (the targets trap), and the name printed last is the culprit.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// Inputs: the files named, and the regular files inside the folders named, in sorted order
// so that a failure is reproducible by position as well as by name.
std::vector<std::filesystem::path> Inputs(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else {
      files.push_back(arg);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
    return 2;
  }
  const auto files = Inputs(argc, argv);
  if (files.empty()) {
    std::fprintf(stderr, "%s: no inputs found (an empty corpus tests nothing)\n", argv[0]);
    return 1;
  }
  for (const auto& file : files) {
    std::fprintf(stderr, "replay %s\n", file.c_str());
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return 1;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::fprintf(stderr, "%zu inputs replayed\n", files.size());
  return 0;
}
