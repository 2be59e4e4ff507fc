#pragma once
// The coefficients of the 2D fluid's momentum stages (MomentumStage, momentum_kernels.hpp) for
// each time scheme: the explicit Shu-Osher stages, and the implicit-viscosity predictor and
// trapezoidal corrector.

namespace sim::fluid {

/// Coefficients of one momentum stage (see MomentumStage): weights, and the dt-proportional
/// ones as multiples of dt (the kernel reads dt from memory). The schemes build them by name.
struct StageCoefficients {
  double w = 0;        ///< weight of the base state u0
  double a = 1;        ///< weight of the input state
  double f_adv = 1;    ///< advection of the input, times dt
  double f_visc = 1;   ///< explicit viscosity of the input, times dt
  double f_p = 0;      ///< the old pressure's gradient, times dt (incremental projection)
  double w_dye = 0;    ///< weight of the base dye
  double f_carry = 0;  ///< the carried state's explicit terms, times dt (0: no carry)
  double f_theta = 0;  ///< theta of the implicit viscous solve that follows, over dt (0: none)

  /// A Shu-Osher stage of an explicit scheme: out = w u0 + (1 - w)(in + dt (nu lap - adv)(in)), the dye alike.
  static StageCoefficients explicit_stage(double w) {
    StageCoefficients c;
    c.w = w, c.a = 1 - w, c.f_adv = c.f_visc = 1 - w, c.w_dye = w;
    return c;
  }
  /// The predictor of an implicit-viscosity scheme with weight theta on the new state:
  /// out = in + dt ((1 - theta) nu lap - adv - grad p)(in), solved next with (I - theta dt nu L);
  /// carry > 0 also keeps in + carry dt (nu lap - adv - grad p)(in) for a corrector.
  static StageCoefficients implicit_predictor(double theta, double carry) {
    StageCoefficients c;
    c.f_visc = 1 - theta, c.f_p = 1, c.f_carry = carry, c.f_theta = theta;
    return c;
  }
  /// The trapezoidal corrector: out = carried + dt/2 (nu lap - adv - grad p)(in), the dye by Heun's second stage.
  static StageCoefficients trapezoidal_corrector() {
    StageCoefficients c;
    c.w = 1, c.a = 0, c.f_adv = c.f_visc = c.f_p = 0.5, c.w_dye = 0.5;
    return c;
  }
};

}  // namespace sim::fluid
