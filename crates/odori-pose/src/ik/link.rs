//! One link's state while its solver runs, and the turn one step gives it (which of the
//! step forms of `step` applies, and what it leaves behind for the next step).

use super::limits::axis_matrix;
use super::plan::{LinkPlan, SingleAxis};
use super::step::Step;
use crate::fk;
use crate::instance::Instance;
use crate::math::matrix_quat;
use crate::model::LinkLimits;
use glam::{Mat3A, Quat};

/// A link during a solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LinkState {
    /// Its local rotation before its grant: its IK result once a solver turned it this frame,
    /// else its animated rotation. Out of date while `pending`.
    pub(super) rotation: Quat,
    /// The rotation matrix its last limited step built (valid while `matrix_set`): MMD's
    /// rebuilt matrix, which FK uses for the link while the solver runs.
    pub(crate) matrix: Mat3A,
    pub(crate) matrix_set: bool,
    /// With `matrix_set`, for a link limited on one axis: its angle about that axis.
    pub(super) angle: f32,
    /// `rotation` is still to be computed from `matrix` (only a later step that starts from
    /// it, or the end of the solve, reads it).
    pub(super) pending: bool,
    /// Some solver turned it this frame (`Instance::ik_solved`).
    pub(crate) solved: bool,
}

impl LinkState {
    pub(crate) const IDLE: LinkState = LinkState {
        rotation: Quat::IDENTITY,
        matrix: Mat3A::IDENTITY,
        matrix_set: false,
        angle: 0.0,
        pending: false,
        solved: false,
    };

    /// A link before its solver's first step: `rotation` is its rotation before its grant
    /// (`fk::own_rotation`), `solved` whether an earlier solver turned it this frame.
    #[inline]
    pub(crate) fn start(rotation: Quat, solved: bool) -> LinkState {
        LinkState {
            rotation,
            solved,
            ..LinkState::IDLE
        }
    }

    /// Link `b` as the instance's per-bone arrays hold it (the general loop, which keeps
    /// them current after every step).
    #[inline]
    pub(crate) fn load(inst: &Instance, b: usize) -> LinkState {
        LinkState {
            rotation: fk::own_rotation(inst, b),
            matrix: inst.ik_matrix[b],
            matrix_set: inst.ik_matrix_set[b],
            angle: inst.ik_angle[b],
            pending: false,
            solved: inst.ik_solved[b],
        }
    }

    /// Write the link back to bone `b`'s per-bone arrays; returns its rotation.
    #[inline]
    pub(crate) fn store(&mut self, inst: &mut Instance, b: usize) -> Quat {
        let q = self.rotation();
        inst.ik_rotation[b] = q;
        inst.ik_solved[b] = self.solved;
        inst.ik_matrix[b] = self.matrix;
        inst.ik_matrix_set[b] = self.matrix_set;
        inst.ik_angle[b] = self.angle;
        q
    }

    /// The link's rotation, computed from its matrix if a step left it pending.
    #[inline]
    pub(crate) fn rotation(&mut self) -> Quat {
        if self.pending {
            self.rotation = matrix_quat(&self.matrix);
            self.pending = false;
        }
        self.rotation
    }

    /// Replace the rotation a step starts from (IK history carried between evaluations).
    #[inline]
    pub(crate) fn set_rotation(&mut self, q: Quat) {
        self.rotation = q;
        self.pending = false;
    }

    /// Turn the link by `step` (see the rules in the `ik` module doc). Returns the rotation
    /// matrix it now has, for the refresh of the chain below it, or `None` when the step
    /// makes no turn.
    #[inline]
    pub(super) fn turn(&mut self, plan: &LinkPlan, step: &Step, reflect: bool) -> Option<Mat3A> {
        let turn = self.begin_turn(plan, step, reflect);
        self.end_turn(turn)
    }

    /// A link on its single axis `axis` turned to `angle`: its matrix (returned), with its
    /// quaternion left pending.
    #[inline(always)]
    pub(super) fn turn_on_axis(&mut self, axis: usize, angle: f32) -> Mat3A {
        let m = axis_matrix(axis, angle);
        self.matrix = m;
        self.angle = angle;
        self.pending = true;
        m
    }

    /// A free link turned to `q`: its matrix (returned).
    #[inline(always)]
    pub(super) fn turn_free(&mut self, q: Quat) -> Mat3A {
        self.rotation = q;
        self.solved = true;
        // A link listed twice, once with limits, keeps the matrix its limited step built, as
        // FK reads it.
        if self.matrix_set {
            self.matrix
        } else {
            crate::math::rotation_matrix(q)
        }
    }

    /// A link limited on one axis alone that an earlier step of this solve left on that axis,
    /// in a step that adds angles (`Step::on_axis`: any first-half step, and second-half steps
    /// when the axis is the one its Euler order applies first): its axis and limits.
    #[inline(always)]
    pub(super) fn on_its_axis<'p>(
        &self,
        plan: &'p LinkPlan,
        reflect: bool,
    ) -> Option<(&'p SingleAxis, &'p LinkLimits)> {
        match (&plan.single, &plan.limits) {
            (Some(single), Some(l)) if self.matrix_set && (reflect || single.first_applied) => {
                Some((single, l))
            }
            _ => None,
        }
    }

    /// The first part of [`LinkState::turn`], up to the new angle of a link turning about its
    /// single axis (whose matrix [`LinkState::end_turn`] builds): two solvers side by side
    /// place each one's arc-cosine or arc-tangent, then each one's sine and cosine, next to
    /// each other (`path::run_pair`).
    #[inline(always)]
    pub(super) fn begin_turn(&mut self, plan: &LinkPlan, step: &Step, reflect: bool) -> Turn {
        if let Some((single, l)) = self.on_its_axis(plan, reflect) {
            // An earlier step of this solve left it on its axis: add angles.
            return match step.on_axis(l, single, self.angle, reflect) {
                Some(angle) => Turn::Axis {
                    axis: single.axis,
                    angle,
                },
                None => Turn::None,
            };
        }
        let current = self.rotation();
        let turned = match &plan.limits {
            Some(l) => {
                let single = plan.single.map(|s| s.axis);
                step.limited(current, l, single, reflect).map(|(q, m, e)| {
                    self.matrix = m;
                    self.matrix_set = true;
                    self.angle = e;
                    self.rotation = q;
                    self.solved = true;
                    m
                })
            }
            None => step.free(current).map(|q| self.turn_free(q)),
        };
        turned.map_or(Turn::None, Turn::Matrix)
    }

    /// The rest of [`LinkState::turn`].
    #[inline(always)]
    pub(super) fn end_turn(&mut self, turn: Turn) -> Option<Mat3A> {
        match turn {
            Turn::None => None,
            Turn::Matrix(m) => Some(m),
            Turn::Axis { axis, angle } => Some(self.turn_on_axis(axis, angle)),
        }
    }
}

/// A turn between [`LinkState::begin_turn`] and [`LinkState::end_turn`].
pub(super) enum Turn {
    /// The step makes no turn.
    None,
    /// The link turned to this rotation matrix.
    Matrix(Mat3A),
    /// The link turns to `angle` about its single axis `axis`.
    Axis { axis: usize, angle: f32 },
}
