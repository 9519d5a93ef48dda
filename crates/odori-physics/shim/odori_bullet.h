/* odori's thin C interface over Bullet (3.07, compiled by build.rs), used by the odori-physics
 * crate through Rust FFI. Only what MMD physics needs: one dynamics world, rigid bodies
 * (sphere / box / capsule), 6-DOF spring joints, kinematic poses, fixed sub-steps.
 *
 * Poses are 7 floats: position x, y, z then rotation quaternion x, y, z, w.
 * Every function tolerates a null world and out-of-range indices (it does nothing, or
 * returns -1), so a Rust-side bug cannot turn into memory corruption here. */
#ifndef ODORI_BULLET_H
#define ODORI_BULLET_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OdoriBtWorld OdoriBtWorld;

typedef struct OdoriBtBody {
    /* 0 sphere (size[0] radius), 1 box (half extents), 2 capsule (radius, height). */
    int shape;
    float size[3];
    float pose[7];
    /* Mass used while the body is dynamic; kinematic bodies get mass 0 in Bullet. */
    float mass;
    float linear_damping;
    float angular_damping;
    float restitution;
    float friction;
    /* Bullet collision filter: group bit(s) and the mask of groups it collides with. */
    int group;
    int mask;
    /* Non-zero: starts kinematic (pose set by the caller every frame). */
    int kinematic;
    /* Non-zero: collisions are detected but produce no response (MMD: mask 0, zero volume). */
    int no_contact_response;
} OdoriBtBody;

typedef struct OdoriBtJoint {
    int body_a;
    int body_b;
    /* Joint frame relative to body A and to body B. */
    float frame_a[7];
    float frame_b[7];
    float linear_lower[3];
    float linear_upper[3];
    float angular_lower[3];
    float angular_upper[3];
    /* Per-axis stiffness: translation x, y, z then rotation x, y, z. */
    float stiffness[6];
    /* Non-zero per axis: spring enabled. */
    int spring_enabled[6];
    /* Stop ERP for all six axes (Bullet's BT_CONSTRAINT_STOP_ERP); <= 0 keeps Bullet's default. */
    float stop_erp;
} OdoriBtJoint;

/* A world for up to max_bodies bodies (odori_bt_add_body refuses more). */
OdoriBtWorld *odori_bt_world_new(float gx, float gy, float gz, int max_bodies);
void odori_bt_world_free(OdoriBtWorld *world);
/* Nonzero: every solver iteration runs Bullet's own loop, and every solve Bullet's own joint
 * setup, not odori's (for tests). */
void odori_bt_force_bullet_solver_loop(OdoriBtWorld *world, int on);
/* Solver iterations so far that ran odori's row loop (fast), those of them whose bodies all had
 * unit linear and angular factors (unit), and those that ran Bullet's own loop (bullet); and
 * the solves whose joint rows odori's setup made (setups). */
void odori_bt_solver_iterations(const OdoriBtWorld *world, long long *fast, long long *unit, long long *bullet,
                                long long *setups);

/* Returns the body's index, or -1 when the description is unusable. */
int odori_bt_add_body(OdoriBtWorld *world, const OdoriBtBody *desc);
/* Returns the joint's index, or -1 when a body index is out of range. */
int odori_bt_add_joint(OdoriBtWorld *world, const OdoriBtJoint *desc);

/* Switch a body between kinematic (follows poses set by the caller) and dynamic. Switching to
 * dynamic clears its velocities. */
void odori_bt_set_kinematic(OdoriBtWorld *world, int body, int kinematic);
/* Set the pose a kinematic body will have at the end of the next step (Bullet derives its
 * velocity from the previous pose). */
void odori_bt_set_pose(OdoriBtWorld *world, int body, const float pose[7]);
/* Teleport a body: pose, previous pose, zero velocities and forces. */
void odori_bt_reset_body(OdoriBtWorld *world, int body, const float pose[7]);
/* Forget cached contact pairs (after teleporting bodies). */
void odori_bt_clear_pairs(OdoriBtWorld *world);
/* Write every body's pose, 7 floats each, into out (capacity count*7). */
void odori_bt_get_poses(const OdoriBtWorld *world, float *out, int count);
/* Gravity from the next step on (acceleration, units per second squared): every dynamic
 * body's, and a body made dynamic later. A non-finite component is ignored. */
void odori_bt_set_gravity(OdoriBtWorld *world, float gx, float gy, float gz);
/* Run `substeps` fixed steps of `fixed_dt` seconds, as one btDiscreteDynamicsWorld
 * stepSimulation call with that many sub-steps would (kinematic velocities over the whole
 * span, gravity applied once), without Bullet's floating-point time accumulator. */
void odori_bt_step(OdoriBtWorld *world, int substeps, float fixed_dt);

#ifdef __cplusplus
}
#endif

#endif
