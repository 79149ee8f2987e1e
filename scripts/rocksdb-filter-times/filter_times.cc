// Query and construction ns/key of RocksDB's own filters — FastLocalBloom (format_version 5)
// and Standard128Ribbon — built from RocksDB's source headers, measured the way
// `cargo bench -p lsmlab --bench filter_times` measures lsmlab's: the same key counts, the best
// of 7 rounds of N calls, present keys then absent ones, 64-bit hashes given (no key hashing).
//
// Built and run by scripts/rocksdb-filter-times.sh, which finds the RocksDB source that the
// `rocksdb` feature of lsmlab-cli builds. Arguments: bits/key list, calls per round, keys.
//
// Sizing is RocksDB's: Bloom's bytes are whole 64-byte lines of bits_per_key × keys bits and
// ChooseNumProbes probes; Ribbon's slots come from BandingConfigHelper1TS<kOneIn20> and its bytes
// from GetBytesForOneInFpRate at the FP rate of that Bloom filter, as
// Standard128RibbonBitsBuilder does (without the Bloom fallback for tiny filters).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "util/bloom_impl.h"
#include "util/ribbon_config.h"
#include "util/ribbon_impl.h"

using namespace ROCKSDB_NAMESPACE;

namespace {

// The types and settings RocksDB's Standard128Ribbon filter uses (filter_policy.cc); they are
// schema-critical there, so these must stay equal to them.
struct RibbonSettings {
  static constexpr bool kIsFilter = true;
  static constexpr bool kHomogeneous = false;
  static constexpr bool kFirstCoeffAlwaysOne = true;
  static constexpr bool kUseSmash = false;
  using CoeffRow = Unsigned128;
  using Hash = uint64_t;
  using Seed = uint32_t;
  using Index = uint32_t;
  using ResultRow = uint32_t;
  static constexpr bool kAllowZeroStarts = false;
};
using TS = ribbon::StandardRehasherAdapter<RibbonSettings>;
using Solution = ribbon::SerializableInterleavedSolution<TS>;
using Banding = ribbon::StandardBanding<TS>;
using Hasher = ribbon::StandardHasher<TS>;
using Config = ribbon::BandingConfigHelper1TS<ribbon::kOneIn20, TS>;

constexpr int kRounds = 7;

// SplitMix64: distinct, well-mixed 64-bit hashes standing in for xxh3 of distinct keys.
uint64_t mix(uint64_t i) {
  uint64_t z = i * 0x9E3779B97F4A7C15ULL + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

template <class F>
double best_ns_per_key(size_t keys, int calls, F&& f) {
  double best = 1e300;
  for (int r = 0; r < kRounds; ++r) {
    auto t = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) f();
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t)
                    .count();
    best = std::min(best, ns / calls / keys);
  }
  return best;
}

volatile size_t sink;

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> bpks = {5, 10};
  if (argc > 1) {
    bpks.clear();
    std::stringstream s(argv[1]);
    std::string x;
    while (std::getline(s, x, ',')) bpks.push_back(std::atof(x.c_str()));
  }
  int calls = argc > 2 ? std::atoi(argv[2]) : 20;
  size_t n = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 100000;
  std::vector<uint64_t> present(n), absent(n);
  for (size_t i = 0; i < n; ++i) {
    present[i] = mix(i);
    absent[i] = mix(i + n);
  }
  std::printf("bpk  filter  build ns/key  bits/key  query present  query absent  FPR\n");
  for (double bpk : bpks) {
    int millibits = static_cast<int>(bpk * 1000.0 + 0.500001);
    int probes = FastLocalBloomImpl::ChooseNumProbes(millibits);
    // Bloom: whole cache lines.
    uint32_t bloom_len = static_cast<uint32_t>((n * millibits / 1000 + 511) / 512 * 64);
    std::unique_ptr<char[]> bloom(new char[bloom_len]);
    double bloom_build = best_ns_per_key(n, calls, [&] {
      std::memset(bloom.get(), 0, bloom_len);
      for (uint64_t h : present)
        FastLocalBloomImpl::AddHash(Lower32of64(h), Upper32of64(h), bloom_len, probes,
                                    bloom.get());
    });
    auto bloom_query = [&](const std::vector<uint64_t>& set) {
      size_t hits = 0;
      for (uint64_t h : set)
        hits += FastLocalBloomImpl::HashMayMatch(Lower32of64(h), Upper32of64(h), bloom_len,
                                                 probes, bloom.get());
      return hits;
    };
    // Ribbon at the FP rate of that Bloom filter.
    double one_in = 1.0 / BloomMath::CacheLocalFpRate(bpk, probes, 512);
    uint32_t slots = Solution::RoundUpNumSlots(Config::GetNumSlots(static_cast<uint32_t>(n)));
    size_t ribbon_len = Solution::GetBytesForOneInFpRate(slots, one_in, 0);
    std::unique_ptr<char[]> ribbon(new char[ribbon_len]);
    Solution soln(ribbon.get(), ribbon_len);
    Hasher hasher;
    bool ok = true;
    double ribbon_build = best_ns_per_key(n, calls, [&] {
      Banding banding;
      ok = banding.ResetAndFindSeedToSolve(slots, present.begin(), present.end(), 0, 255);
      soln.BackSubstFrom(banding);
      hasher.SetOrdinalSeed(banding.GetOrdinalSeed());
    });
    if (!ok) {
      std::fprintf(stderr, "ribbon: no seed solved %zu keys in %u slots\n", n, slots);
      return 1;
    }
    auto ribbon_query = [&](const std::vector<uint64_t>& set) {
      size_t hits = 0;
      for (uint64_t h : set) hits += soln.FilterQuery(h, hasher);
      return hits;
    };
    struct Row {
      const char* name;
      double build;
      size_t bytes;
      std::function<size_t(const std::vector<uint64_t>&)> query;
    };
    Row rows[] = {{"bloom", bloom_build, bloom_len, bloom_query},
                  {"ribbon", ribbon_build, ribbon_len, ribbon_query}};
    for (const Row& r : rows) {
      if (r.query(present) != n) {
        std::fprintf(stderr, "%s: a present key did not match\n", r.name);
        return 1;
      }
      double fpr = static_cast<double>(r.query(absent)) / n;
      double q_present = best_ns_per_key(n, calls, [&] { sink = r.query(present); });
      double q_absent = best_ns_per_key(n, calls, [&] { sink = r.query(absent); });
      std::printf("%3g  %-6s  %12.2f  %8.3f  %13.2f  %12.2f  %.4f%%\n", bpk, r.name, r.build,
                  r.bytes * 8.0 / n, q_present, q_absent, 100 * fpr);
    }
  }
  return 0;
}
