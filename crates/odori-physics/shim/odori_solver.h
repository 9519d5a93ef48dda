// odori's constraint solver: Bullet's sequential-impulse solver with its inner loop, one
// Gauss-Seidel pass over the solver rows, written for speed (see odori_solver.cpp).
#ifndef ODORI_SOLVER_H
#define ODORI_SOLVER_H

#include <btBulletDynamicsCommon.h>

namespace odori {

// btSequentialImpulseConstraintSolver whose `solveSingleIteration` runs odori's row loop
// (same rows, same order, same arithmetic, so the same bits as Bullet's scalar reference
// path) when the solver info asks for nothing it does not cover, and Bullet's own otherwise.
class Solver final : public btSequentialImpulseConstraintSolver {
public:
    // Iterations odori's loop ran, and those it left to Bullet's (tests read these to see
    // which path ran).
    long long fast_iterations() const { return fast_; }
    long long bullet_iterations() const { return bullet_; }
    // Send every iteration to Bullet's own loop (tests compare the two).
    void force_bullet_loop(bool on) { force_bullet_ = on; }

protected:
    btScalar solveSingleIteration(int iteration, btCollisionObject **bodies, int numBodies,
                                  btPersistentManifold **manifolds, int numManifolds,
                                  btTypedConstraint **constraints, int numConstraints,
                                  const btContactSolverInfo &info, btIDebugDraw *debug) override;

private:
    long long fast_ = 0;
    long long bullet_ = 0;
    bool force_bullet_ = false;
};

}  // namespace odori

#endif
