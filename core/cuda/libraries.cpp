// cuBLAS and cuSOLVER opened on first use (see libraries.hpp).
#include "core/cuda/libraries.hpp"

#include <dlfcn.h>

#include <string>

#include "core/runtime/error.hpp"

namespace sim::cuda_libs {

namespace {

#define SIMKIT_NAME2(x) #x
#define SIMKIT_NAME(x) SIMKIT_NAME2(x)  // the symbol's name after macro expansion (cublasCreate -> "cublasCreate_v2")

void* open_library(const char* soname, const char* what) {
  void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw Error(std::string(what) + ": could not open " + soname + " (" + (why ? why : "unknown reason") +
                "); install the CUDA toolkit's " + what + " or add its folder to LD_LIBRARY_PATH");
  }
  return lib;
}

template <class F>
void bind(void* lib, const char* soname, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) throw Error(std::string(soname) + " has no " + name + ": a different major version than simkit was built with?");
}

}  // namespace

#define SIMKIT_BIND(f) bind(lib, SIMKIT_CUBLAS_SONAME, SIMKIT_NAME(f), t.f);
const Cublas& cublas() {
  static const Cublas table = [] {
    Cublas t;
    void* lib = open_library(SIMKIT_CUBLAS_SONAME, "cuBLAS");
    SIMKIT_CUBLAS_FUNCTIONS(SIMKIT_BIND)
    return t;
  }();
  return table;
}
#undef SIMKIT_BIND

#define SIMKIT_BIND(f) bind(lib, SIMKIT_CUSOLVER_SONAME, SIMKIT_NAME(f), t.f);
const Cusolver& cusolver() {
  static const Cusolver table = [] {
    Cusolver t;
    void* lib = open_library(SIMKIT_CUSOLVER_SONAME, "cuSOLVER");
    SIMKIT_CUSOLVER_FUNCTIONS(SIMKIT_BIND)
    return t;
  }();
  return table;
}
#undef SIMKIT_BIND

}  // namespace sim::cuda_libs
