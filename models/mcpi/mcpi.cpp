// The Monte Carlo model. One step draws one batch. Sample s of the run always uses the same
// Philox words (fused path) whatever the batch size, so counts are identical across batch
// splits, resumes and backends; the checkpoint holds hits and samples drawn. On several
// ranks each counts its share of every batch's sample range and the counts are added: the
// same samples, the same count, on any number of ranks.
#include "models/mcpi/mcpi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "io/config.hpp"
#include "models/mcpi/mc_count.hpp"

namespace sim {

double unit_ball_volume(int d) { return std::pow(M_PI, d / 2.0) / std::tgamma(d / 2.0 + 1.0); }

namespace {

template <class T>
class McModel final : public Model {
 public:
  explicit McModel(const ModelSetup& s) : ctx_(s.ctx), comm_(s.comm) {
    const io::Config& c = *s.config;
    pi_ = c.string("model", "integrand") == "pi";
    dim_ = pi_ ? 2 : int(c.integer("model", "dimension"));
    if (pi_ && c.is_set("model", "dimension") && c.integer("model", "dimension") != 2)
      throw c.error_at("model", "dimension", "integrand = \"pi\" is 2-dimensional; use integrand = \"ball\" for other dimensions");
    batch_ = std::uint64_t(c.integer("model", "batch"));
    fused_ = c.string("model", "path") == "fused";
    if (!fused_ && comm_.parallel())
      throw c.error_at("model", "path", "path = \"array\" draws from one stream and does not run on several ranks (this "
                                        "run has " + std::to_string(comm_.size()) +
                                        "); use path = \"fused\", which splits the samples over the ranks");
    seed_ = std::uint64_t(c.integer("run", "seed"));
    if (!fused_) {
      const index_t n = index_t(batch_);
      coordinate_ = Array<T, 1>(ctx_, extents(n));
      r2_ = Array<T, 1>(ctx_, extents(n));
    }
  }

  std::vector<FieldRef> fields() override { return {}; }
  void initialize() override { hits_ = samples_ = 0; }

  void step(double) override {
    if (fused_) {
      // this rank's share of the batch: samples [first, first + count) of the run
      const std::uint64_t r = std::uint64_t(comm_.rank()), n = std::uint64_t(comm_.size());
      const std::uint64_t share = batch_ / n, extra = batch_ % n;
      const std::uint64_t first = samples_ + r * share + std::min(r, extra), count = share + (r < extra ? 1 : 0);
      const std::uint64_t hits = count ? mc_count_in_ball(ctx_, McQuery{seed_, ctx_.rng_stream(), first, count, dim_}) : 0;
      hits_ += comm_.sum(hits);
    } else {  // as a CuPy user would write it: random arrays, one expression, one count
      fill_uniform(coordinate_);
      r2_ = coordinate_ * coordinate_;
      for (int d = 1; d < dim_; ++d) {
        fill_uniform(coordinate_);
        r2_ = r2_ + coordinate_ * coordinate_;
      }
      hits_ += std::uint64_t(count(r2_ <= T(1)));
    }
    samples_ += batch_;
  }

  double default_dt(double) const override { return 1.0; }  // time counts batches

  std::vector<Diagnostic> diagnostics() override {
    const double n = double(samples_), p = n > 0 ? double(hits_) / n : 0;
    const double scale = pi_ ? 4.0 : std::ldexp(1.0, dim_);  // quarter disc / orthant
    const double est = scale * p, se = n > 0 ? scale * std::sqrt(p * (1 - p) / n) : 0;
    const double exact = pi_ ? M_PI : unit_ball_volume(dim_);
    return {{"estimate", "", est},        {"std_error", "", se},          {"ci95_low", "", est - 1.959964 * se},
            {"ci95_high", "", est + 1.959964 * se}, {"exact", "", exact}, {"samples", "", n},
            {"hits", "", double(hits_)}};
  }

  double cell_updates_per_step() const override { return double(batch_); }

  void save_state(std::map<std::string, std::uint64_t>& counters, std::map<std::string, double>&) const override {
    counters["mc_hits"] = hits_;
    counters["mc_samples"] = samples_;
  }
  void load_state(const std::map<std::string, std::uint64_t>& counters, const std::map<std::string, double>&) override {
    hits_ = counters.at("mc_hits");
    samples_ = counters.at("mc_samples");
  }

 private:
  Context ctx_;
  Comm comm_;
  bool pi_ = true, fused_ = true;
  int dim_ = 2;
  std::uint64_t batch_ = 0, seed_ = 0, hits_ = 0, samples_ = 0;
  Array<T, 1> coordinate_, r2_;
};

}  // namespace

ModelInfo mcpi_model_info() {
  using io::Param;
  ModelInfo m;
  m.name = "mcpi";
  m.doc = "Monte Carlo integration: pi, or the volume of the unit d-ball; fused or array path";
  m.time_unit = "";  // time counts batches
  m.parallel = Parallel::own;
  m.schema.section = "model";
  m.schema.doc = "Monte Carlo parameters (the run draws run.steps batches)";
  auto p = [&](Param q) { m.schema.params.push_back(std::move(q)); };
  p(Param::string("integrand", "pi").one_of({"pi", "ball"})
     .says("pi: 4 x the quarter disc; ball: 2^d x the orthant of the unit d-ball"));
  p(Param::integer("dimension", 2).range(2, 10).says("d for integrand = \"ball\""));
  p(Param::integer("batch", 100000000).range(1, 1e12).in("samples").says("samples drawn per step"));
  p(Param::string("path", "fused").one_of({"fused", "array"})
     .says("fused: one kernel, no samples stored; array: random arrays + expression + count (run.precision)"));
  m.create = [](const ModelSetup& s) -> std::unique_ptr<Model> {
    if (s.float64) return std::make_unique<McModel<double>>(s);
    return std::make_unique<McModel<float>>(s);
  };
  return m;
}

}  // namespace sim
