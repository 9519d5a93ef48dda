// odori's solver loop (see odori_solver.h).
//
// Why: in the browser about two fifths of a physics step was Bullet's Gauss-Seidel iteration
// over the solver rows, and much of that was not arithmetic. Bullet calls each row through a
// function pointer (an indirect call that wasm engines cannot inline), and every iteration
// also calls `solveConstraintObsolete` on every joint, a virtual call that is empty for the
// 6-DOF spring joints MMD uses, after looking up both of the joint's solver bodies.
//
// This loop solves the same rows in the same order with the same float operations (a row is
// MMD's, Bullet's, projected Gauss-Seidel: the impulse that removes the row's velocity error,
// clamped to its limits, applied to both bodies), so a step's result is bit-identical to
// Bullet's scalar path, the one odori's native and wasm32 builds both take.
#include "odori_solver.h"

namespace odori {
namespace {

// The row's projections and impulses, in two spellings of the same arithmetic. With vector extensions (GCC 12+ and clang: SSE2 on
// x86-64, SIMD128 on wasm32) the products and the velocity updates are four lanes at a time;
// a lane's product or sum is the same IEEE operation on the same operands as the scalar
// code's, and each dot product is still summed (x + y) + z, so both give the same bits
// (odori-physics' tests/solver_loop.rs holds a whole dance stepped by this loop to the same
// dance stepped by Bullet's own). Lane w of a vector is not Bullet's and is left as it was.
#if defined(__has_builtin)
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

inline v4 splat(btScalar s) { return v4{s, s, s, s}; }

// `to` += `add` in x, y and z.
inline void add_xyz(btVector3 &to, v4 add) {
    const v4 old = load(to);
    const v4 sum = __builtin_shufflevector(old + add, old, 0, 1, 2, 7);
    __builtin_memcpy(to.m_floats, &sum, sizeof sum);
}

// Bullet's btSolverBody::internalApplyImpulse: linear += ((normal * invMass) * impulse) *
// linearFactor, angular += angularComponent * (impulse * angularFactor).
inline void apply(btSolverBody &body, const btVector3 &normal, const btVector3 &angular, btScalar impulse) {
    if (!body.m_originalBody) return;
    const v4 i = splat(impulse);
    add_xyz(body.internalGetDeltaLinearVelocity(), load(normal) * load(body.internalGetInvMass()) * i * load(body.m_linearFactor));
    add_xyz(body.internalGetDeltaAngularVelocity(), load(angular) * (i * load(body.m_angularFactor)));
}

// The row's Jacobian times each body's velocity change so far: (va, vb).
inline void projections(btSolverBody &a, btSolverBody &b, const btSolverConstraint &c, btScalar &va, btScalar &vb) {
    // The four products, then transposed so one lane holds one dot product's x, y or z.
    const v4 p = load(c.m_contactNormal1) * load(a.internalGetDeltaLinearVelocity());
    const v4 q = load(c.m_relpos1CrossNormal) * load(a.internalGetDeltaAngularVelocity());
    const v4 r = load(c.m_contactNormal2) * load(b.internalGetDeltaLinearVelocity());
    const v4 t = load(c.m_relpos2CrossNormal) * load(b.internalGetDeltaAngularVelocity());
    const v4 pq01 = __builtin_shufflevector(p, q, 0, 4, 1, 5);
    const v4 rt01 = __builtin_shufflevector(r, t, 0, 4, 1, 5);
    const v4 pq2 = __builtin_shufflevector(p, q, 2, 6, 3, 7);
    const v4 rt2 = __builtin_shufflevector(r, t, 2, 6, 3, 7);
    const v4 x = __builtin_shufflevector(pq01, rt01, 0, 1, 4, 5);
    const v4 y = __builtin_shufflevector(pq01, rt01, 2, 3, 6, 7);
    const v4 z = __builtin_shufflevector(pq2, rt2, 0, 1, 4, 5);
    const v4 dots = (x + y) + z;
    va = dots[0] + dots[1];
    vb = dots[2] + dots[3];
}
#else
inline void projections(btSolverBody &a, btSolverBody &b, const btSolverConstraint &c, btScalar &va, btScalar &vb) {
    va = c.m_contactNormal1.dot(a.internalGetDeltaLinearVelocity()) +
         c.m_relpos1CrossNormal.dot(a.internalGetDeltaAngularVelocity());
    vb = c.m_contactNormal2.dot(b.internalGetDeltaLinearVelocity()) +
         c.m_relpos2CrossNormal.dot(b.internalGetDeltaAngularVelocity());
}

inline void apply(btSolverBody &body, const btVector3 &normal, const btVector3 &angular, btScalar impulse) {
    body.internalApplyImpulse(normal * body.internalGetInvMass(), angular, impulse);
}
#endif

// One row of projected Gauss-Seidel: the velocity error along the row's Jacobian, the impulse
// that cancels it, clamped so the accumulated impulse stays in [lower, upper] (`Upper`: rows
// with an upper limit; contact rows have none), applied to both bodies. Returns the clamped
// impulse over the row's effective mass, Bullet's residual, computed as Bullet computes it
// (in double, `1.` being a double literal there).
template <bool Upper>
inline btScalar solve_row(btSolverBody &a, btSolverBody &b, const btSolverConstraint &c) {
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
    apply(a, c.m_contactNormal1, c.m_angularComponentA, delta);
    apply(b, c.m_contactNormal2, c.m_angularComponentB, delta);
    return static_cast<btScalar>(delta * (1. / c.m_jacDiagABInv));
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
    bool covered = !force_bullet_ && !(info.m_solverMode & (SOLVER_RANDMIZE_ORDER | SOLVER_INTERLEAVE_CONTACT_AND_FRICTION_CONSTRAINTS)) &&
                   m_tmpSolverContactRollingFrictionConstraintPool.size() == 0;
    for (int j = 0; covered && j < numConstraints; ++j) {
        covered = has_no_obsolete_solve(constraints[j]);
    }
    if (!covered) {
        ++bullet_;
        return btSequentialImpulseConstraintSolver::solveSingleIteration(
            iteration, bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debug);
    }
    ++fast_;
    btScalar residual = 0;
    btSolverBody *pool = m_tmpSolverBodyPool.size() ? &m_tmpSolverBodyPool[0] : nullptr;
    const auto keep = [&residual](btScalar r) { residual = btMax(residual, r * r); };

    const int joint_rows = m_tmpSolverNonContactConstraintPool.size();
    for (int j = 0; j < joint_rows; ++j) {
        const btSolverConstraint &c = m_tmpSolverNonContactConstraintPool[m_orderNonContactConstraintPool[j]];
        if (iteration < c.m_overrideNumSolverIterations) {
            keep(solve_row<true>(pool[c.m_solverBodyIdA], pool[c.m_solverBodyIdB], c));
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
        keep(solve_row<false>(pool[c.m_solverBodyIdA], pool[c.m_solverBodyIdB], c));
    }
    // Friction bounded by the friction coefficient times the contact's normal impulse.
    const int friction_rows = m_tmpSolverContactFrictionConstraintPool.size();
    for (int j = 0; j < friction_rows; ++j) {
        btSolverConstraint &c = m_tmpSolverContactFrictionConstraintPool[m_orderFrictionConstraintPool[j]];
        const btScalar normal = m_tmpSolverContactConstraintPool[c.m_frictionIndex].m_appliedImpulse;
        if (normal > btScalar(0)) {
            c.m_lowerLimit = -(c.m_friction * normal);
            c.m_upperLimit = c.m_friction * normal;
            keep(solve_row<true>(pool[c.m_solverBodyIdA], pool[c.m_solverBodyIdB], c));
        }
    }
    return residual;
}

}  // namespace odori
