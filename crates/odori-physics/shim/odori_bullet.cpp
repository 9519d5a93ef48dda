// odori's thin C shim over Bullet (see odori_bullet.h for the contract).
//
// Why a shim of our own: Bullet is C++, and the few calls MMD physics needs (a
// btDiscreteDynamicsWorld, btGeneric6DofSpringConstraint, kinematic poses) fit in one small
// file, which keeps the Rust side free of C++ ABI details.

#include "odori_bullet.h"
#include "odori_solver.h"

#include <btBulletDynamicsCommon.h>

// No C++ standard library beyond placement/nothrow new: the same file builds for
// wasm32-unknown-unknown, which has none (shim/wasm).
#include <new>

namespace {

btTransform to_transform(const float p[7]) {
    btTransform t;
    t.setOrigin(btVector3(p[0], p[1], p[2]));
    t.setRotation(btQuaternion(p[3], p[4], p[5], p[6]));
    return t;
}

void from_transform(const btTransform &t, float out[7]) {
    const btVector3 &o = t.getOrigin();
    const btQuaternion q = t.getRotation();
    out[0] = o.x();
    out[1] = o.y();
    out[2] = o.z();
    out[3] = q.x();
    out[4] = q.y();
    out[5] = q.z();
    out[6] = q.w();
}

bool finite(const float *v, int n) {
    for (int i = 0; i < n; ++i) {
        if (!__builtin_isfinite(v[i])) return false;
    }
    return true;
}

// A dynamics world whose step runs a caller-chosen number of fixed sub-steps. It mirrors the
// body of btDiscreteDynamicsWorld::stepSimulation (kinematic velocities measured over the
// whole span, gravity applied once, then the sub-steps) but leaves out its float time
// accumulator, whose rounding can turn 1/30 s into one sub-step one frame and three the next.
class World final : public btDiscreteDynamicsWorld {
public:
    World(btDispatcher *d, btBroadphaseInterface *b, btConstraintSolver *s, btCollisionConfiguration *c)
        : btDiscreteDynamicsWorld(d, b, s, c) {}

    void step_fixed(int substeps, btScalar dt) {
        saveKinematicState(dt * btScalar(substeps));
        applyGravity();
        for (int i = 0; i < substeps; ++i) {
            internalSingleStepSimulation(dt);
            synchronizeMotionStates();
        }
        clearForces();
    }
};

// Bullet's group/mask test, plus: two bodies that physics does not move (kinematic or static)
// never become a pair. Their contacts push nothing, yet Bullet would compute them every step
// (MMD bodies never sleep); most of a model's kinematic bodies overlap at the torso.
struct Filter final : public btOverlapFilterCallback {
    bool needBroadphaseCollision(btBroadphaseProxy *p0, btBroadphaseProxy *p1) const override {
        const bool collides = (p0->m_collisionFilterGroup & p1->m_collisionFilterMask) != 0 &&
                              (p1->m_collisionFilterGroup & p0->m_collisionFilterMask) != 0;
        if (!collides) return false;
        const auto *a = static_cast<const btCollisionObject *>(p0->m_clientObject);
        const auto *b = static_cast<const btCollisionObject *>(p1->m_clientObject);
        return !(a && b && a->isStaticOrKinematicObject() && b->isStaticOrKinematicObject());
    }
};

// Owned by OdoriBtWorld, which deletes `shape` and `body`.
struct Body {
    btCollisionShape *shape;
    btRigidBody *body;
    btScalar mass;
    btVector3 inertia;
};

}  // namespace

// Half the side of the cube the broadphase quantises positions in (32-bit integers), in MMD
// units: 4096 (about 330 m) is far beyond any stage, and its step, about 5e-4 units at the
// edge (a float's precision there), is far below Bullet's 0.04 collision margin. A body
// outside is clamped to the cube's face: it still meets the bodies it touches, among more
// candidate pairs.
constexpr btScalar world_half_size = 4096;

struct OdoriBtWorld {
    Filter filter;
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher;
    // Sweep and prune, not Bullet's default dynamic AABB tree: every body of a dancing model
    // moves every step, and the tree then re-inserts most leaves and queries both its trees
    // for each (a fifth of a step's time for Gene); sorting endpoints that moved a little
    // costs far less (pose + physics 0.87x in the page, A/B). Bounds in `world_half_size`.
    bt32BitAxisSweep3 broadphase;
    int capacity;
    odori::Solver solver;
    World world;
    btVector3 gravity;
    btAlignedObjectArray<Body> bodies;
    btAlignedObjectArray<btGeneric6DofSpringConstraint *> joints;

    OdoriBtWorld(const btVector3 &g, int max_bodies)
        : filter(), config(), dispatcher(&config),
          // Handle 0 is the sweep's sentinel; no ray-test tree (odori casts no rays).
          broadphase(btVector3(-world_half_size, -world_half_size, -world_half_size),
                     btVector3(world_half_size, world_half_size, world_half_size),
                     static_cast<unsigned int>(max_bodies) + 1, nullptr, true),
          capacity(max_bodies), solver(), world(&dispatcher, &broadphase, &solver, &config), gravity(g) {
        world.setGravity(g);
        world.getPairCache()->setOverlapFilterCallback(&filter);
    }

    ~OdoriBtWorld() {
        for (int i = joints.size() - 1; i >= 0; --i) {
            world.removeConstraint(joints[i]);
            delete joints[i];
        }
        for (int i = bodies.size() - 1; i >= 0; --i) {
            world.removeRigidBody(bodies[i].body);
            delete bodies[i].body;
            delete bodies[i].shape;
        }
    }

    btRigidBody *get(int i) const {
        if (i < 0 || i >= bodies.size()) return nullptr;
        return bodies[i].body;
    }
};

extern "C" {

OdoriBtWorld *odori_bt_world_new(float gx, float gy, float gz, int max_bodies) {
    if (max_bodies < 1 || max_bodies > (1 << 24)) return nullptr;
    return new (std::nothrow) OdoriBtWorld(btVector3(gx, gy, gz), max_bodies);
}

void odori_bt_world_free(OdoriBtWorld *world) { delete world; }

void odori_bt_force_bullet_solver_loop(OdoriBtWorld *w, int on) {
    if (w) w->solver.force_bullet_loop(on != 0);
}

void odori_bt_solver_iterations(const OdoriBtWorld *w, long long *fast, long long *unit, long long *bullet, long long *setups) {
    *setups = w ? w->solver.joint_setups() : 0;
    *fast = w ? w->solver.fast_iterations() : 0;
    *unit = w ? w->solver.unit_factor_iterations() : 0;
    *bullet = w ? w->solver.bullet_iterations() : 0;
}

int odori_bt_add_body(OdoriBtWorld *w, const OdoriBtBody *d) {
    if (!w || !d) return -1;
    // The sweep's handles are allocated up front; one more body would write past them.
    if (w->bodies.size() >= w->capacity) return -1;
    if (!finite(d->size, 3) || !finite(d->pose, 7) || !__builtin_isfinite(d->mass)) return -1;
    btCollisionShape *shape;
    switch (d->shape) {
        case 0: shape = new btSphereShape(d->size[0]); break;
        case 1: shape = new btBoxShape(btVector3(d->size[0], d->size[1], d->size[2])); break;
        case 2: shape = new btCapsuleShape(d->size[0], d->size[1]); break;
        default: return -1;
    }
    const btScalar mass = d->mass > 0 ? d->mass : 0;
    btVector3 inertia(0, 0, 0);
    if (mass > 0) shape->calculateLocalInertia(mass, inertia);

    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
    info.m_startWorldTransform = to_transform(d->pose);
    info.m_linearDamping = d->linear_damping;
    info.m_angularDamping = d->angular_damping;
    info.m_restitution = d->restitution;
    info.m_friction = d->friction;
    // MMD's Bullet setup (and every MMD runtime built on Bullet) uses additional damping and
    // never lets bodies sleep.
    info.m_additionalDamping = true;
    info.m_linearSleepingThreshold = 0;
    info.m_angularSleepingThreshold = 0;

    btRigidBody *body = new btRigidBody(info);
    body->setActivationState(DISABLE_DEACTIVATION);
    if (d->no_contact_response) {
        body->setCollisionFlags(body->getCollisionFlags() | btCollisionObject::CF_NO_CONTACT_RESPONSE);
    }
    if (d->kinematic && mass == 0) {
        // A body that is kinematic for good: Bullet's usual mass-0 kinematic object.
        body->setCollisionFlags(body->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
    }
    w->world.addRigidBody(body, d->group, d->mask);
    Body entry;
    entry.shape = shape;
    entry.body = body;
    entry.mass = mass;
    entry.inertia = inertia;
    w->bodies.push_back(entry);
    const int index = static_cast<int>(w->bodies.size() - 1);
    // A dynamic body that starts kinematic is added as dynamic first, so Bullet keeps it
    // among the bodies it integrates once it is switched back.
    if (d->kinematic && mass > 0) odori_bt_set_kinematic(w, index, 1);
    return index;
}

int odori_bt_add_joint(OdoriBtWorld *w, const OdoriBtJoint *d) {
    if (!w || !d) return -1;
    btRigidBody *a = w->get(d->body_a);
    btRigidBody *b = w->get(d->body_b);
    if (!a || !b || a == b) return -1;
    if (!finite(d->frame_a, 7) || !finite(d->frame_b, 7)) return -1;
    btGeneric6DofSpringConstraint *c =
        new btGeneric6DofSpringConstraint(*a, *b, to_transform(d->frame_a), to_transform(d->frame_b), true);
    c->setLinearLowerLimit(btVector3(d->linear_lower[0], d->linear_lower[1], d->linear_lower[2]));
    c->setLinearUpperLimit(btVector3(d->linear_upper[0], d->linear_upper[1], d->linear_upper[2]));
    c->setAngularLowerLimit(btVector3(d->angular_lower[0], d->angular_lower[1], d->angular_lower[2]));
    c->setAngularUpperLimit(btVector3(d->angular_upper[0], d->angular_upper[1], d->angular_upper[2]));
    for (int i = 0; i < 6; ++i) {
        if (d->spring_enabled[i]) {
            c->setStiffness(i, d->stiffness[i]);
            c->enableSpring(i, true);
        } else {
            c->enableSpring(i, false);
        }
        if (d->stop_erp > 0) c->setParam(BT_CONSTRAINT_STOP_ERP, d->stop_erp, i);
    }
    w->world.addConstraint(c, false);
    w->joints.push_back(c);
    return static_cast<int>(w->joints.size() - 1);
}

void odori_bt_set_kinematic(OdoriBtWorld *w, int i, int kinematic) {
    if (!w) return;
    btRigidBody *body = w->get(i);
    if (!body) return;
    const Body &e = w->bodies[i];
    const bool is_kinematic = body->isKinematicObject();
    if ((kinematic != 0) == is_kinematic) return;
    if (kinematic) {
        // Mass 0 so joints treat it as immovable, as they treat mode-0 bodies.
        body->setMassProps(0, btVector3(0, 0, 0));
        body->setCollisionFlags(body->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
    } else {
        if (e.mass <= 0) return;
        body->setCollisionFlags(body->getCollisionFlags() & ~btCollisionObject::CF_KINEMATIC_OBJECT);
        body->setMassProps(e.mass, e.inertia);
        body->setGravity(w->gravity);
        body->setLinearVelocity(btVector3(0, 0, 0));
        body->setAngularVelocity(btVector3(0, 0, 0));
        body->setInterpolationWorldTransform(body->getWorldTransform());
    }
    body->updateInertiaTensor();
    body->setActivationState(DISABLE_DEACTIVATION);
    if (body->getBroadphaseHandle()) {
        // Pairs were filtered by the old kinematic state: drop them and let the broadphase
        // find this body's overlaps again.
        w->world.getPairCache()->cleanProxyFromPairs(body->getBroadphaseHandle(), &w->dispatcher);
        w->world.refreshBroadphaseProxy(body);
    }
}

void odori_bt_set_pose(OdoriBtWorld *w, int i, const float pose[7]) {
    if (!w || !pose || !finite(pose, 7)) return;
    btRigidBody *body = w->get(i);
    if (!body) return;
    body->setWorldTransform(to_transform(pose));
}

void odori_bt_reset_body(OdoriBtWorld *w, int i, const float pose[7]) {
    if (!w || !pose || !finite(pose, 7)) return;
    btRigidBody *body = w->get(i);
    if (!body) return;
    const btTransform t = to_transform(pose);
    body->setWorldTransform(t);
    body->setInterpolationWorldTransform(t);
    body->setLinearVelocity(btVector3(0, 0, 0));
    body->setAngularVelocity(btVector3(0, 0, 0));
    body->setInterpolationLinearVelocity(btVector3(0, 0, 0));
    body->setInterpolationAngularVelocity(btVector3(0, 0, 0));
    body->clearForces();
}

void odori_bt_clear_pairs(OdoriBtWorld *w) {
    if (!w) return;
    for (int i = 0; i < w->bodies.size(); ++i) {
        btRigidBody *body = w->bodies[i].body;
        if (body->getBroadphaseHandle()) {
            w->world.getPairCache()->cleanProxyFromPairs(body->getBroadphaseHandle(), &w->dispatcher);
        }
    }
}

void odori_bt_get_poses(const OdoriBtWorld *w, float *out, int count) {
    if (!w || !out) return;
    const int n = count < w->bodies.size() ? count : w->bodies.size();
    for (int i = 0; i < n; ++i) from_transform(w->bodies[i].body->getWorldTransform(), out + 7 * i);
}

void odori_bt_set_gravity(OdoriBtWorld *w, float gx, float gy, float gz) {
    if (!w || !__builtin_isfinite(gx) || !__builtin_isfinite(gy) || !__builtin_isfinite(gz)) return;
    w->gravity = btVector3(gx, gy, gz);
    // The world's own call skips bodies Bullet deems inactive; set each body's, so none keeps
    // the old gravity (a kinematic body keeps it for when it turns dynamic).
    w->world.setGravity(w->gravity);
    for (int i = 0; i < w->bodies.size(); ++i) {
        w->bodies[i].body->setGravity(w->gravity);
    }
}

void odori_bt_step(OdoriBtWorld *w, int substeps, float fixed_dt) {
    if (!w || substeps <= 0 || !(fixed_dt > 0) || !__builtin_isfinite(fixed_dt)) return;
    w->world.step_fixed(substeps, fixed_dt);
}

}  // extern "C"
