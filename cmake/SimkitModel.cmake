# simkit_add_model(NAME SOURCES file...): builds a model plugin, libNAME.so, that `simulate`
# loads with [run] plugins = ["path/libNAME.so"] or --plugin. Sources are plain .cpp files;
# when simkit was built with CUDA they are compiled by nvcc for the same architectures. The
# plugin takes simkit's functions from the simulate that loads it (one copy in the process).
function(simkit_add_model name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "simkit_add_model(${name}): give the model's files with SOURCES")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE simkit::plugin_api)
  if(SIMKIT_HAS_CUDA)
    set_source_files_properties(${ARG_SOURCES} PROPERTIES LANGUAGE CUDA)
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr -Xcompiler=-fopenmp>)
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  endif()
  # host floating point as simkit's own code: no fused multiply-adds the GPU would not make
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>
                         $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-ffp-contract=off>)
  set_target_properties(${name} PROPERTIES CXX_STANDARD 17 CUDA_STANDARD 17 PREFIX "lib")
endfunction()

# simkit_add_executable(NAME SOURCES file...): your own program using simkit's array core as
# a plain library (no model framework); its files are compiled by nvcc when simkit has CUDA.
function(simkit_add_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE simkit::core)
  if(SIMKIT_HAS_CUDA)
    set_source_files_properties(${ARG_SOURCES} PROPERTIES LANGUAGE CUDA)
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  endif()
  set_target_properties(${name} PROPERTIES CXX_STANDARD 17 CUDA_STANDARD 17)
endfunction()
