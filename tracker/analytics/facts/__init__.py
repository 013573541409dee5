"""Reference data the analytics read: GPU datasheets (`gpu_models`), the
dated FX rates, region groups and side-cost rates (`reference`), node
networks (`network`) and MLPerf benchmark results (`benchmarks`), each from
its table under tracker/data/."""
