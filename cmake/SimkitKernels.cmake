# simkit_kernel_sources(file ...): files that launch kernels (for_each, reduce, fused
# expressions) are plain .cpp files; in a cuda build they are compiled by nvcc so that the
# same source runs on both backends.
function(simkit_kernel_sources)
  if(SIMKIT_HAS_CUDA)
    set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}
                                PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()

# Compile options every target that compiles kernels needs (nvcc: extended lambdas, OpenMP
# for the host side of .cu-compiled sources).
function(simkit_kernel_options target)
  if(SIMKIT_HAS_CUDA)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr -Xcompiler=-fopenmp>)
  endif()
endfunction()
