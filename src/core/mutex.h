// mutex.h — std::mutex and std::shared_mutex as clang's thread-safety
// analysis sees them (core/thread_annotations.h), and their lock guards.
//
// libstdc++'s mutexes carry no capability attributes, so a GUARDED_BY(mu)
// member is checked only when `mu` is one of these. Every method is inline
// and forwards to the standard one: the generated code is the same.
//
//   Mutex, MutexLock    std::mutex and std::lock_guard
//   UniqueLock          std::unique_lock<std::mutex>: unlock() and lock()
//                       again inside its scope, and condition variables
//   SharedMutex, ReaderLock, WriterLock
//                       std::shared_mutex, std::shared_lock, std::unique_lock
//
// Condition variables (std::condition_variable and _any) wait on a
// UniqueLock's native() std::unique_lock. A wait lets the
// mutex go and takes it back; to the analysis the mutex stays held across
// it (true of the code before and after). A predicate lambda is analysed as
// a function of its own: mark it REQUIRES(mu) to read guarded members.
#pragma once

#include <mutex>
#include <shared_mutex>

#include "core/thread_annotations.h"

namespace forgemeter::core_detail {

class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // The std::mutex itself, for a std::unique_lock that UniqueLock holds.
  std::mutex& native() RETURN_CAPABILITY(this) { return mu_; }

 private:
  std::mutex mu_;
};

// std::lock_guard: holds a Mutex, or a SharedMutex exclusively, for its scope.
template <class M>
class SCOPED_CAPABILITY ExclusiveLock {
 public:
  explicit ExclusiveLock(M& mu) ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~ExclusiveLock() RELEASE() { mu_.unlock(); }
  ExclusiveLock(const ExclusiveLock&) = delete;
  ExclusiveLock& operator=(const ExclusiveLock&) = delete;

 private:
  M& mu_;
};

class SCOPED_CAPABILITY UniqueLock {
 public:
  explicit UniqueLock(Mutex& mu) ACQUIRE(mu) : lock_(mu.native()) {}
  ~UniqueLock() RELEASE() = default;
  UniqueLock(const UniqueLock&) = delete;
  UniqueLock& operator=(const UniqueLock&) = delete;

  void lock() ACQUIRE() { lock_.lock(); }
  void unlock() RELEASE() { lock_.unlock(); }
  // For std::condition_variable::wait*() (see above).
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

class CAPABILITY("shared mutex") SharedMutex {
 public:
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  void lock_shared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void unlock_shared() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_.lock_shared(); }
  ~ReaderLock() RELEASE() { mu_.unlock_shared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex& mu_;
};

using MutexLock = ExclusiveLock<Mutex>;
using WriterLock = ExclusiveLock<SharedMutex>;

}  // namespace forgemeter::core_detail
