// Device assert: a failed assertion ends the launch with an error instead of aborting the process.
// No include guard, like the C library's: each inclusion re-reads NDEBUG.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : ::kp::kp_assert_fail(#e, __FILE__, __LINE__))
#endif
