// thread_annotations.h — what each mutex guards and in which order mutexes
// are taken, written so that clang's thread-safety analysis checks it
// (-Wthread-safety; `scripts/dev tidy` runs it over src/). Under other
// compilers the macros are empty.
//
// On a member:   GUARDED_BY(mu) (the member), PT_GUARDED_BY(mu) (what a
//                pointer member points to), ACQUIRED_BEFORE/AFTER(other) (on
//                a mutex: the order two mutexes are held together in).
// On a function: REQUIRES(mu) (the caller holds it), EXCLUDES(mu) (the
//                caller does not: the function takes it), ACQUIRE/RELEASE
//                (the function takes or lets go of it).
// On a type:     CAPABILITY (a mutex), SCOPED_CAPABILITY (a lock guard).
// NO_THREAD_SAFETY_ANALYSIS opts one function out; say why beside it.
//
// The wrappers that carry these on a mutex are in core/mutex.h.
#pragma once

#if defined(__clang__)
#define FM_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define FM_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(name) FM_THREAD_ANNOTATION(capability(name))
#define SCOPED_CAPABILITY FM_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) FM_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) FM_THREAD_ANNOTATION(pt_guarded_by(x))
#define ACQUIRED_BEFORE(...) FM_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) FM_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define REQUIRES(...) FM_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) FM_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define EXCLUDES(...) FM_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) FM_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) FM_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) FM_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) FM_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) FM_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) FM_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) FM_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) FM_THREAD_ANNOTATION(assert_capability(x))
#define RETURN_CAPABILITY(x) FM_THREAD_ANNOTATION(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS FM_THREAD_ANNOTATION(no_thread_safety_analysis)
