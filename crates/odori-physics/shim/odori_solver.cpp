// odori's solver loop and joint setup (see odori_solver.h).
//
// Why: in the browser about two fifths of a physics step was Bullet's Gauss-Seidel iteration
// over the solver rows, and much of that was not arithmetic. Bullet calls each row through a
// function pointer (an indirect call that wasm engines cannot inline), and every iteration
// also calls `solveConstraintObsolete` on every joint, a virtual call that is empty for the
// 6-DOF spring joints MMD uses, after looking up both of the joint's solver bodies. Another
// tenth was setting up the joints' rows each step, in scalar products.
//
// This loop solves the same rows in the same order with the same float operations (a row is
// MMD's, Bullet's, projected Gauss-Seidel: the impulse that removes the row's velocity error,
// clamped to its limits, applied to both bodies), and the setup makes the same rows, so a
// step's result is bit-identical to Bullet's scalar path, the one odori's native and wasm32
// builds both take. What each row does to its bodies per unit of impulse, which Bullet works
// out again every iteration, is worked out once a solve (`RowResponse`).
#include "odori_solver.h"

namespace odori {
namespace {

// Whether a row whose response on `body` is (`linear`, `angular`) changes the body's
// velocity. Not for a body without a rigid body (static: Bullet skips it), nor when the
// response is all zeros, as on a kinematic body (zero inverse mass and inertia): Bullet then
// adds zeros times the impulse, ±0, to the body's velocity change, and that changes no bit
// while the impulse is finite. A component x + ±0 is x unless x is -0, and a velocity change
// is never -0: it starts +0 (Bullet's setValue), and a sum is -0 only when both terms are.
// Nearly half of a dancing model's joint rows tie a body to a kinematic one (a strand of hair
// to the head).
inline bool moves(const btSolverBody &body, const btVector3 &linear, const btVector3 &angular) {
    const btVector3 zero(0, 0, 0);
    return body.m_originalBody && !(linear == zero && angular == zero);
}

// The row's projections and impulses, in two spellings of the same arithmetic. With vector extensions (GCC 12+ and clang: SSE2 on
// x86-64, SIMD128 on wasm32) the products and the velocity updates are four lanes at a time;
// a lane's product or sum is the same IEEE operation on the same operands as the scalar
// code's, and each dot product is still summed (x + y) + z, so both give the same bits
// (odori-physics' tests/solver_loop.rs holds a whole dance stepped by this loop to the same
// dance stepped by Bullet's own). Lane w of a vector is not Bullet's: the velocity changes'
// lanes w stay +0 (see `add_xyz`, `apply_response`).
// `ODORI_SOLVER_SCALAR` (build.rs, from the environment variable of that name) forces the
// scalar spelling, so that CI runs tests/solver_loop.rs through it too.
#if defined(__has_builtin) && !defined(ODORI_SOLVER_SCALAR)
#if __has_builtin(__builtin_shufflevector)
#define ODORI_SOLVER_VECTOR 1
#endif
#endif

#ifdef ODORI_SOLVER_VECTOR
typedef float v4 __attribute__((vector_size(16)));

inline v4 load(const btVector3 &v) {
    v4 r;
    __builtin_memcpy(&r, v.m_floats, sizeof r);
    return r;
}

inline void store(btVector3 &to, v4 v) { __builtin_memcpy(to.m_floats, &v, sizeof v); }

inline v4 splat(btScalar s) { return v4{s, s, s, s}; }

typedef int v4i __attribute__((vector_size(16)));

// Lanes x, y, z of `v`, lane w +0 (Bullet's three-component results have w 0).
inline v4 xyz(v4 v) { return (v4)((v4i)v & v4i{-1, -1, -1, 0}); }

// Bullet's scalar dot product of the first three lanes: (x + y) + z of the lanes' products.
inline btScalar dot(v4 a, v4 b) {
    const v4 p = a * b;
    return (p[0] + p[1]) + p[2];
}

// `to` += `add` in x, y and z; lane w gets +0 added, which leaves it as it was (Bullet keeps
// it +0 and never reads it). Masking `add`'s w to +0 is one instruction; keeping w by a blend
// took x86-64's baseline SSE2 six shuffles per update.
inline void add_xyz(btVector3 &to, v4 add) { store(to, load(to) + xyz(add)); }

// Bullet's btSolverBody::internalApplyImpulse: linear += ((normal * invMass) * impulse) *
// linearFactor, angular += angularComponent * (impulse * angularFactor). `Unit`: both factors
// are (1, 1, 1), as they are for every MMD body, and a product with 1 is its other operand
// exactly, so those two multiplies are left out.
template <bool Unit>
inline void apply(btSolverBody &body, const btVector3 &normal, const btVector3 &angular, btScalar impulse) {
    if (!body.m_originalBody) return;
    const v4 i = splat(impulse);
    if (Unit) {
        add_xyz(body.internalGetDeltaLinearVelocity(), load(normal) * load(body.internalGetInvMass()) * i);
        add_xyz(body.internalGetDeltaAngularVelocity(), load(angular) * i);
    } else {
        add_xyz(body.internalGetDeltaLinearVelocity(), load(normal) * load(body.internalGetInvMass()) * i * load(body.m_linearFactor));
        add_xyz(body.internalGetDeltaAngularVelocity(), load(angular) * (i * load(body.m_angularFactor)));
    }
}

// A joint row's impulse applied to a body whose factors are (1, 1, 1), from the row's
// `RowResponse`: Bullet's `internalApplyImpulse` adds (linear * impulse) * 1 and
// angular * (impulse * 1), and a product with 1 is its other operand. Lane w: the response's
// +0 times the impulse added to the body's +0 (Bullet's setValue) leaves +0. Only for a body
// the row `moves`.
inline void apply_response(btSolverBody &body, const btVector3 &linear, const btVector3 &angular, btScalar impulse) {
    const v4 i = splat(impulse);
    store(body.internalGetDeltaLinearVelocity(), load(body.internalGetDeltaLinearVelocity()) + load(linear) * i);
    store(body.internalGetDeltaAngularVelocity(), load(body.internalGetDeltaAngularVelocity()) + load(angular) * i);
}

// The row's Jacobian times each body's velocity change so far: (va, vb).
inline void projections(btSolverBody &a, btSolverBody &b, const btSolverConstraint &c, btScalar &va, btScalar &vb) {
    // The four dot products' products four lanes at a time, each summed (x + y) + z.
    va = dot(load(c.m_contactNormal1), load(a.internalGetDeltaLinearVelocity())) +
         dot(load(c.m_relpos1CrossNormal), load(a.internalGetDeltaAngularVelocity()));
    vb = dot(load(c.m_contactNormal2), load(b.internalGetDeltaLinearVelocity())) +
         dot(load(c.m_relpos2CrossNormal), load(b.internalGetDeltaAngularVelocity()));
}
#else
inline void projections(btSolverBody &a, btSolverBody &b, const btSolverConstraint &c, btScalar &va, btScalar &vb) {
    va = c.m_contactNormal1.dot(a.internalGetDeltaLinearVelocity()) +
         c.m_relpos1CrossNormal.dot(a.internalGetDeltaAngularVelocity());
    vb = c.m_contactNormal2.dot(b.internalGetDeltaLinearVelocity()) +
         c.m_relpos2CrossNormal.dot(b.internalGetDeltaAngularVelocity());
}

template <bool Unit>
inline void apply(btSolverBody &body, const btVector3 &normal, const btVector3 &angular, btScalar impulse) {
    body.internalApplyImpulse(normal * body.internalGetInvMass(), angular, impulse);
}

inline void apply_response(btSolverBody &body, const btVector3 &linear, const btVector3 &angular, btScalar impulse) {
    body.internalApplyImpulse(linear, angular, impulse);
}
#endif

// Bullet's `1. / m_jacDiagABInv` (a double: `1.` is a double literal there), which its
// residual divides by; the same every iteration of a solve.
inline double inverse_jacobian_diagonal(const btSolverConstraint &c) { return 1. / c.m_jacDiagABInv; }

// The row's impulse: the velocity error along the row's Jacobian and the impulse that cancels
// it, clamped so the accumulated impulse stays in [lower, upper] (`Upper`: rows with an upper
// limit; contact rows have none), with the row's accumulated impulse updated.
template <bool Upper>
inline btScalar row_impulse(btSolverBody &a, btSolverBody &b, const btSolverConstraint &c) {
    btScalar delta = c.m_rhs - btScalar(c.m_appliedImpulse) * c.m_cfm;
    btScalar va, vb;
    projections(a, b, c, va, vb);
    delta -= va * c.m_jacDiagABInv;
    delta -= vb * c.m_jacDiagABInv;
    const btScalar sum = btScalar(c.m_appliedImpulse) + delta;
    if (sum < c.m_lowerLimit) {
        delta = c.m_lowerLimit - c.m_appliedImpulse;
        c.m_appliedImpulse = c.m_lowerLimit;
    } else if (Upper && sum > c.m_upperLimit) {
        delta = c.m_upperLimit - c.m_appliedImpulse;
        c.m_appliedImpulse = c.m_upperLimit;
    } else {
        c.m_appliedImpulse = sum;
    }
    return delta;
}

// One row of projected Gauss-Seidel: `row_impulse`, applied to both bodies. Returns the clamped
// impulse over the row's effective mass, Bullet's residual, computed as Bullet computes it (in
// double, with `inverse` the row's `inverse_jacobian_diagonal`). `Unit`: see `apply`.
template <bool Upper, bool Unit>
inline btScalar solve_row(btSolverBody &a, btSolverBody &b, const btSolverConstraint &c, double inverse) {
    const btScalar delta = row_impulse<Upper>(a, b, c);
    apply<Unit>(a, c.m_contactNormal1, c.m_angularComponentA, delta);
    apply<Unit>(b, c.m_contactNormal2, c.m_angularComponentB, delta);
    return static_cast<btScalar>(delta * inverse);
}

// Joints whose `solveConstraintObsolete` is btTypedConstraint's empty one.
bool has_no_obsolete_solve(const btTypedConstraint *c) {
    const int type = c->getConstraintType();
    return type == D6_CONSTRAINT_TYPE || type == D6_SPRING_CONSTRAINT_TYPE ||
           type == D6_SPRING_2_CONSTRAINT_TYPE;
}

}  // namespace

btScalar Solver::solveSingleIteration(int iteration, btCollisionObject **bodies, int numBodies,
                                      btPersistentManifold **manifolds, int numManifolds,
                                      btTypedConstraint **constraints, int numConstraints,
                                      const btContactSolverInfo &info, btIDebugDraw *debug) {
    // What this loop does not do: shuffled row order, contact and friction rows interleaved,
    // rolling friction, joints with an obsolete solve of their own; and, when asked, nothing.
    // Unshuffled, Bullet's setup leaves the joint rows in their own order, which the loop
    // then walks directly (checked once a solve).
    if (iteration == 0) {
        joint_rows_in_order_ = true;
        for (int j = 0; j < m_orderNonContactConstraintPool.size(); ++j) {
            joint_rows_in_order_ = joint_rows_in_order_ && m_orderNonContactConstraintPool[j] == j;
        }
    }
    bool covered = !force_bullet_ && !(info.m_solverMode & (SOLVER_RANDMIZE_ORDER | SOLVER_INTERLEAVE_CONTACT_AND_FRICTION_CONSTRAINTS)) &&
                   m_tmpSolverContactRollingFrictionConstraintPool.size() == 0 && joint_rows_in_order_;
    for (int j = 0; covered && j < numConstraints; ++j) {
        covered = has_no_obsolete_solve(constraints[j]);
    }
    if (!covered) {
        ++bullet_;
        return btSequentialImpulseConstraintSolver::solveSingleIteration(
            iteration, bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debug);
    }
    ++fast_;
    // The bodies rows touch are in the pool by iteration 0 (joints and contacts were set up).
    if (iteration == 0) unit_factors_ = all_factors_unit();
    unit_ += unit_factors_;
    return unit_factors_ ? solve_rows<true>(iteration, constraints, numConstraints, info)
                         : solve_rows<false>(iteration, constraints, numConstraints, info);
}

bool Solver::all_factors_unit() const {
    const btVector3 one(1, 1, 1);
    for (int i = 0; i < m_tmpSolverBodyPool.size(); ++i) {
        const btSolverBody &b = m_tmpSolverBodyPool[i];
        if (b.m_originalBody && !(b.m_linearFactor == one && b.m_angularFactor == one)) return false;
    }
    return true;
}

// Bullet's convertJoints, step for step, with `convert_joint` for its convertJoint. Why: in
// the page, setting up the joints' rows was a tenth of a physics step, most of it the scalar
// products convertJoint makes per row. With Bullet's loop forced (the tests' reference),
// Bullet's own, so the tests hold this to it too.
void Solver::convertJoints(btTypedConstraint **constraints, int numConstraints, const btContactSolverInfo &info) {
#ifdef ODORI_SOLVER_VECTOR
    const bool own = !force_bullet_;
#else
    const bool own = false;
#endif
    if (!own) {
        btSequentialImpulseConstraintSolver::convertJoints(constraints, numConstraints, info);
        prepare_joint_rows();
        return;
    }
    ++setups_;
    for (int j = 0; j < numConstraints; ++j) {
        constraints[j]->buildJacobian();
        constraints[j]->internalSetAppliedImpulse(0.0f);
    }
    int rows = 0;
    m_tmpConstraintSizesPool.resizeNoInitialize(numConstraints);
    for (int i = 0; i < numConstraints; ++i) {
        btTypedConstraint::btConstraintInfo1 &info1 = m_tmpConstraintSizesPool[i];
        if (btJointFeedback *fb = constraints[i]->getJointFeedback()) {
            fb->m_appliedForceBodyA.setZero();
            fb->m_appliedTorqueBodyA.setZero();
            fb->m_appliedForceBodyB.setZero();
            fb->m_appliedTorqueBodyB.setZero();
        }
        if (constraints[i]->isEnabled()) {
            constraints[i]->getInfo1(&info1);
        } else {
            info1.m_numConstraintRows = 0;
            info1.nub = 0;
        }
        rows += info1.m_numConstraintRows;
    }
    m_tmpSolverNonContactConstraintPool.resizeNoInitialize(rows);
    responses_.resize(rows);
    int row = 0;
    for (int i = 0; i < numConstraints; ++i) {
        const btTypedConstraint::btConstraintInfo1 &info1 = m_tmpConstraintSizesPool[i];
        if (info1.m_numConstraintRows) {
            btTypedConstraint *constraint = constraints[i];
            const int a = getOrInitSolverBody(constraint->getRigidBodyA(), info.m_timeStep);
            const int b = getOrInitSolverBody(constraint->getRigidBodyB(), info.m_timeStep);
            convert_joint(row, constraint, info1, a, b, info);
        }
        row += info1.m_numConstraintRows;
    }
}

#ifdef ODORI_SOLVER_VECTOR
namespace {

// A 3x3 matrix by columns, so Bullet's `m * v`, whose component i is row i's dot product with
// v, (m[i][0] * x + m[i][1] * y) + m[i][2] * z, is lane i of (c0 * x + c1 * y) + c2 * z.
struct Columns {
    v4 c0, c1, c2;
    explicit Columns(const btMatrix3x3 &m)
        : c0{m[0].x(), m[1].x(), m[2].x(), 0}, c1{m[0].y(), m[1].y(), m[2].y(), 0}, c2{m[0].z(), m[1].z(), m[2].z(), 0} {}
    v4 times(v4 v) const { return (c0 * splat(v[0]) + c1 * splat(v[1])) + c2 * splat(v[2]); }
};

}  // namespace
#endif

// Bullet's convertJoint for the `info1.m_numConstraintRows` rows from `first_row`: the rows
// cleared and set up, the joint's getInfo2 filling in its Jacobians, limits and errors, then
// each row finished: limits capped by the breaking threshold, angular components, the
// inverse of the effective mass and the right-hand side. The finishing arithmetic is
// Bullet's, operation for operation (a matrix product or a vector's components four lanes at
// a time, each lane the operation Bullet does on that component), so the rows have Bullet's
// bits. Also fills the rows' `RowResponse`s.
void Solver::convert_joint(int first_row, btTypedConstraint *constraint, const btTypedConstraint::btConstraintInfo1 &info1,
                           int body_a, int body_b, const btContactSolverInfo &info) {
#ifdef ODORI_SOLVER_VECTOR
    const btRigidBody &rb_a = constraint->getRigidBodyA();
    const btRigidBody &rb_b = constraint->getRigidBodyB();
    const btSolverBody &sa = m_tmpSolverBodyPool[body_a];
    const btSolverBody &sb = m_tmpSolverBodyPool[body_b];
    btSolverConstraint *rows = &m_tmpSolverNonContactConstraintPool[first_row];
    const int count = info1.m_numConstraintRows;

    const int iterations = constraint->getOverrideNumSolverIterations() > 0 ? constraint->getOverrideNumSolverIterations() : info.m_numIterations;
    if (iterations > m_maxOverrideNumSolverIterations) m_maxOverrideNumSolverIterations = iterations;
    for (int j = 0; j < count; ++j) {
        btSolverConstraint &r = rows[j];
        memset(static_cast<void *>(&r), 0, sizeof(btSolverConstraint));
        r.m_lowerLimit = -SIMD_INFINITY;
        r.m_upperLimit = SIMD_INFINITY;
        r.m_appliedImpulse = 0.f;
        r.m_appliedPushImpulse = 0.f;
        r.m_solverBodyIdA = body_a;
        r.m_solverBodyIdB = body_b;
        r.m_overrideNumSolverIterations = iterations;
    }

    btTypedConstraint::btConstraintInfo2 info2;
    info2.fps = 1.f / info.m_timeStep;
    info2.erp = info.m_erp;
    info2.m_J1linearAxis = rows->m_contactNormal1;
    info2.m_J1angularAxis = rows->m_relpos1CrossNormal;
    info2.m_J2linearAxis = rows->m_contactNormal2;
    info2.m_J2angularAxis = rows->m_relpos2CrossNormal;
    info2.rowskip = sizeof(btSolverConstraint) / sizeof(btScalar);
    info2.m_constraintError = &rows->m_rhs;
    rows->m_cfm = info.m_globalCfm;
    info2.m_damping = info.m_damping;
    info2.cfm = &rows->m_cfm;
    info2.m_lowerLimit = &rows->m_lowerLimit;
    info2.m_upperLimit = &rows->m_upperLimit;
    info2.m_numIterations = info.m_numIterations;
    constraint->getInfo2(&info2);

    // Per body, what every row of the joint uses.
    const Columns inertia_a(rb_a.getInvInertiaTensorWorld()), inertia_b(rb_b.getInvInertiaTensorWorld());
    const v4 factor_a = load(rb_a.getAngularFactor()), factor_b = load(rb_b.getAngularFactor());
    const v4 inv_mass_a = splat(rb_a.getInvMass()), inv_mass_b = splat(rb_b.getInvMass());
    const v4 solver_inv_mass_a = load(sa.internalGetInvMass()), solver_inv_mass_b = load(sb.internalGetInvMass());
    const v4 zero{0, 0, 0, 0};
    const v4 velocity_a = load(rb_a.getLinearVelocity()) + (sa.m_originalBody ? load(sa.m_externalForceImpulse) : zero);
    const v4 spin_a = load(rb_a.getAngularVelocity()) + (sa.m_originalBody ? load(sa.m_externalTorqueImpulse) : zero);
    const v4 velocity_b = load(rb_b.getLinearVelocity()) + (sb.m_originalBody ? load(sb.m_externalForceImpulse) : zero);
    const v4 spin_b = load(rb_b.getAngularVelocity()) + (sb.m_originalBody ? load(sb.m_externalTorqueImpulse) : zero);
    const btScalar threshold = constraint->getBreakingImpulseThreshold();

    for (int j = 0; j < count; ++j) {
        btSolverConstraint &r = rows[j];
        if (r.m_upperLimit >= threshold) r.m_upperLimit = threshold;
        if (r.m_lowerLimit <= -threshold) r.m_lowerLimit = -threshold;
        r.m_originalContactPoint = constraint;

        const v4 n1 = load(r.m_contactNormal1), t1 = load(r.m_relpos1CrossNormal);
        const v4 n2 = load(r.m_contactNormal2), t2 = load(r.m_relpos2CrossNormal);
        const v4 it1 = inertia_a.times(t1), it2 = inertia_b.times(t2);
        const v4 angular_a = xyz(it1 * factor_a), angular_b = xyz(it2 * factor_b);
        store(r.m_angularComponentA, angular_a);
        store(r.m_angularComponentB, angular_b);

        btScalar sum = dot(n1 * inv_mass_a, n1);
        sum += dot(it1, t1);
        sum += dot(n2 * inv_mass_b, n2);
        sum += dot(it2, t2);
        const btScalar sor = 1.f;
        r.m_jacDiagABInv = btFabs(sum) > SIMD_EPSILON ? sor / sum : 0.f;

        const btScalar vel1 = dot(n1, velocity_a) + dot(t1, spin_a);
        const btScalar vel2 = dot(n2, velocity_b) + dot(t2, spin_b);
        const btScalar rel_vel = vel1 + vel2;
        const btScalar restitution = 0.f;
        const btScalar velocity_error = restitution - rel_vel * info2.m_damping;
        const btScalar penetration_impulse = r.m_rhs * r.m_jacDiagABInv;
        const btScalar velocity_impulse = velocity_error * r.m_jacDiagABInv;
        r.m_rhs = penetration_impulse + velocity_impulse;
        r.m_appliedImpulse = 0.f;

        RowResponse &response = responses_[first_row + j];
        store(response.linear_a, xyz(n1 * solver_inv_mass_a));
        store(response.angular_a, angular_a);
        store(response.linear_b, xyz(n2 * solver_inv_mass_b));
        store(response.angular_b, angular_b);
        response.inverse = inverse_jacobian_diagonal(r);
        response.moves_a = moves(sa, response.linear_a, response.angular_a);
        response.moves_b = moves(sb, response.linear_b, response.angular_b);
    }
#else
    // Without vector extensions convertJoints leaves the rows to Bullet and never calls this.
    (void)first_row, (void)constraint, (void)info1, (void)body_a, (void)body_b, (void)info;
#endif
}

void Solver::prepare_joint_rows() {
    const int rows = m_tmpSolverNonContactConstraintPool.size();
    responses_.resize(rows);
    for (int j = 0; j < rows; ++j) {
        const btSolverConstraint &c = m_tmpSolverNonContactConstraintPool[j];
        const btSolverBody &a = m_tmpSolverBodyPool[c.m_solverBodyIdA];
        const btSolverBody &b = m_tmpSolverBodyPool[c.m_solverBodyIdB];
        RowResponse &r = responses_[j];
        // btVector3's three-component products and constructor leave lane w +0.
        r.linear_a = c.m_contactNormal1 * a.internalGetInvMass();
        r.angular_a = btVector3(c.m_angularComponentA.x(), c.m_angularComponentA.y(), c.m_angularComponentA.z());
        r.linear_b = c.m_contactNormal2 * b.internalGetInvMass();
        r.angular_b = btVector3(c.m_angularComponentB.x(), c.m_angularComponentB.y(), c.m_angularComponentB.z());
        r.inverse = inverse_jacobian_diagonal(c);
        r.moves_a = moves(a, r.linear_a, r.angular_a);
        r.moves_b = moves(b, r.linear_b, r.angular_b);
    }
}

template <bool Unit>
btScalar Solver::solve_rows(int iteration, btTypedConstraint **constraints, int numConstraints,
                            const btContactSolverInfo &info) {
    btScalar residual = 0;
    btSolverBody *pool = m_tmpSolverBodyPool.size() ? &m_tmpSolverBodyPool[0] : nullptr;
    const auto keep = [&residual](btScalar r) { residual = btMax(residual, r * r); };

    const int joint_rows = m_tmpSolverNonContactConstraintPool.size();
    for (int j = 0; j < joint_rows; ++j) {
        const btSolverConstraint &c = m_tmpSolverNonContactConstraintPool[j];
        if (iteration < c.m_overrideNumSolverIterations) {
            const RowResponse &r = responses_[j];
            btSolverBody &a = pool[c.m_solverBodyIdA], &b = pool[c.m_solverBodyIdB];
            if (Unit) {
                const btScalar delta = row_impulse<true>(a, b, c);
                if (r.moves_a) apply_response(a, r.linear_a, r.angular_a, delta);
                if (r.moves_b) apply_response(b, r.linear_b, r.angular_b, delta);
                keep(static_cast<btScalar>(delta * r.inverse));
            } else {
                keep(solve_row<true, false>(a, b, c, r.inverse));
            }
        }
    }
    if (iteration >= info.m_numIterations) return residual;

    // Bullet looks up (and on first sight creates) both solver bodies of every enabled joint
    // here before the empty obsolete solve. Joints with rows already have theirs; a joint
    // without rows this step may not, and its bodies join the pool as in Bullet. Once done,
    // later iterations find them and change nothing.
    if (iteration == 0) {
        for (int j = 0; j < numConstraints; ++j) {
            if (constraints[j]->isEnabled()) {
                getOrInitSolverBody(constraints[j]->getRigidBodyA(), info.m_timeStep);
                getOrInitSolverBody(constraints[j]->getRigidBodyB(), info.m_timeStep);
            }
        }
        pool = m_tmpSolverBodyPool.size() ? &m_tmpSolverBodyPool[0] : nullptr;
    }

    const int contact_rows = m_tmpSolverContactConstraintPool.size();
    for (int j = 0; j < contact_rows; ++j) {
        const btSolverConstraint &c = m_tmpSolverContactConstraintPool[m_orderTmpConstraintPool[j]];
        keep(solve_row<false, Unit>(pool[c.m_solverBodyIdA], pool[c.m_solverBodyIdB], c, inverse_jacobian_diagonal(c)));
    }
    // Friction bounded by the friction coefficient times the contact's normal impulse.
    const int friction_rows = m_tmpSolverContactFrictionConstraintPool.size();
    for (int j = 0; j < friction_rows; ++j) {
        btSolverConstraint &c = m_tmpSolverContactFrictionConstraintPool[m_orderFrictionConstraintPool[j]];
        const btScalar normal = m_tmpSolverContactConstraintPool[c.m_frictionIndex].m_appliedImpulse;
        if (normal > btScalar(0)) {
            c.m_lowerLimit = -(c.m_friction * normal);
            c.m_upperLimit = c.m_friction * normal;
            keep(solve_row<true, Unit>(pool[c.m_solverBodyIdA], pool[c.m_solverBodyIdB], c, inverse_jacobian_diagonal(c)));
        }
    }
    return residual;
}

}  // namespace odori
