#pragma once
// Device memory that reductions run now keep from call to call, one buffer per execution-space instance: a
// reduction's first kernel writes its partial results there and its second kernel folds them, and the calls on
// one instance run in order, so they can share it (as Kokkos' own reductions share an instance's scratch).
// A call holds its instance's buffer from lookup until its kernels are launched, so two host threads calling on
// one instance cannot interleave their kernels over it; calls on different instances do not wait for each other.
// A few instances are kept (each kept copy keeps its instance, and so its stream, alive); the buffers go at
// Kokkos::finalize.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace kstream::impl {

inline constexpr std::size_t kept_instances = 8;

/// Calls launch(p) with p at least `bytes` of exec's memory, kept for exec's kernels (see above).
template <class ExecSpace, class Launch>
void with_instance_scratch(const ExecSpace& exec, std::size_t bytes, const Launch& launch) {
  struct Kept {
    ExecSpace exec;
    std::uint32_t id;
    std::mutex in_use;
    Kokkos::View<unsigned char*, typename ExecSpace::memory_space> memory;
  };
  static std::mutex table_mutex;
  static std::vector<std::shared_ptr<Kept>> table;  // the most recently used last
  static bool hooked = false;
  std::shared_ptr<Kept> kept;
  {
    const std::lock_guard lock(table_mutex);
    if (!hooked) {
      Kokkos::push_finalize_hook([] {
        const std::lock_guard at_finalize(table_mutex);
        table.clear();
      });
      hooked = true;
    }
    const std::uint32_t id = Kokkos::Tools::Experimental::device_id(exec);
    auto found = std::find_if(table.begin(), table.end(), [&](const auto& k) { return k->id == id; });
    if (found == table.end()) {
      if (table.size() == kept_instances) {
        table.front()->exec.fence("kstream: letting go of a reduction buffer");
        table.erase(table.begin());
      }
      auto added = std::make_shared<Kept>();
      added->exec = exec;
      added->id = id;
      table.push_back(std::move(added));
    } else {
      std::rotate(found, found + 1, table.end());
    }
    kept = table.back();
  }
  const std::lock_guard use(kept->in_use);
  if (kept->memory.extent(0) < bytes) {
    exec.fence("kstream: growing a reduction buffer");  // earlier calls' kernels may still read the old one
    kept->memory = {};
    kept->memory = decltype(kept->memory)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kstream::partials"), bytes);
  }
  launch(static_cast<void*>(kept->memory.data()));
}

}  // namespace kstream::impl
