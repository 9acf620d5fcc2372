"""The `cpp` kind: a C++17 function compiled by g++ in the compile sandbox and called through its
`extern "C"` signature in the run sandbox's child. Imports nothing."""
