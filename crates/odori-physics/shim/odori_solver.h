// odori's constraint solver: Bullet's sequential-impulse solver with its inner loop, one
// Gauss-Seidel pass over the solver rows, and its joints' row setup written for speed (see
// odori_solver.cpp).
#ifndef ODORI_SOLVER_H
#define ODORI_SOLVER_H

#include <btBulletDynamicsCommon.h>

namespace odori {

// btSequentialImpulseConstraintSolver whose `solveSingleIteration` runs odori's row loop
// (same rows, same order, same arithmetic, so the same bits as Bullet's scalar reference
// path) when the solver info asks for nothing it does not cover, and Bullet's own otherwise;
// and whose `convertJoints` makes Bullet's rows with odori's arithmetic (the same bits) unless
// Bullet's loop is forced.
class Solver final : public btSequentialImpulseConstraintSolver {
public:
    // Iterations odori's loop ran, and those it left to Bullet's (tests read these to see
    // which path ran).
    long long fast_iterations() const { return fast_; }
    long long bullet_iterations() const { return bullet_; }
    // Of the fast iterations, those whose rows skipped multiplying by unit body factors.
    long long unit_factor_iterations() const { return unit_; }
    // Solves whose joint rows odori's convertJoints set up (not Bullet's).
    long long joint_setups() const { return setups_; }
    // Send every iteration to Bullet's own loop, and the joints' setup to Bullet's own
    // convertJoints (tests compare the two).
    void force_bullet_loop(bool on) { force_bullet_ = on; }

protected:
    void convertJoints(btTypedConstraint **constraints, int numConstraints, const btContactSolverInfo &info) override;
    btScalar solveSingleIteration(int iteration, btCollisionObject **bodies, int numBodies,
                                  btPersistentManifold **manifolds, int numManifolds,
                                  btTypedConstraint **constraints, int numConstraints,
                                  const btContactSolverInfo &info, btIDebugDraw *debug) override;

private:
    // Whether every solver body with a rigid body has linear and angular factors (1, 1, 1),
    // Bullet's default and MMD's (rows then skip multiplying by them; see odori_solver.cpp).
    bool all_factors_unit() const;
    // Fills `responses_` for this solve's joint rows, as set up by Bullet's convertJoints.
    void prepare_joint_rows();
    // Bullet's convertJoint, the same arithmetic four lanes at a time, also filling the rows'
    // `responses_` (see odori_solver.cpp).
    void convert_joint(int first_row, btTypedConstraint *constraint, const btTypedConstraint::btConstraintInfo1 &info1,
                       int body_a, int body_b, const btContactSolverInfo &info);
    // One iteration over the rows; `Unit`: `all_factors_unit()` held at iteration 0.
    template <bool Unit>
    btScalar solve_rows(int iteration, btTypedConstraint **constraints, int numConstraints,
                        const btContactSolverInfo &info);

    long long fast_ = 0;
    long long bullet_ = 0;
    long long unit_ = 0;
    long long setups_ = 0;
    bool force_bullet_ = false;
    bool unit_factors_ = false;
    // Whether the joint rows' order is their own (Bullet's unshuffled setup), at iteration 0.
    bool joint_rows_in_order_ = false;
    // What a joint row does per unit of impulse, worked out once a solve rather than once an
    // iteration: each body's linear velocity change (Bullet's normal * invMass; used when
    // every body has unit factors) and angular one (Bullet's angular component), lane w +0;
    // and Bullet's `1. / m_jacDiagABInv`, which the row's residual divides by.
    struct RowResponse {
        btVector3 linear_a, angular_a, linear_b, angular_b;
        double inverse;
        // Whether the row changes the body's velocity at all (see `moves`).
        bool moves_a, moves_b;
    };
    // Per joint row in Bullet's order (kept between steps, so a step allocates nothing).
    btAlignedObjectArray<RowResponse> responses_;
};

}  // namespace odori

#endif
