//! The compiled, immutable model: bones in deform order, IK solvers and append relations as
//! indices, morph tables. Built once from a PMX or PMD file and shared by every instance.

mod footprint;
mod from_pmd;
mod from_pmx;
mod ik_runs;
mod order;

use glam::{Quat, Vec3A, Vec4};
use std::ops::Range;

/// "No bone": the parent of a root bone.
pub const NONE: u32 = u32::MAX;

/// [`Model::pass_flags`]: the bone has a grant (append rule); its update goes through
/// `append` and may find the grant dropped by its IK.
pub(crate) const PASS_GRANT: u8 = 1;
/// [`Model::pass_flags`]: the bone is an IK effector; its update keeps its pass position.
pub(crate) const PASS_EFFECTOR: u8 = 2;

/// How a bone copies another bone's motion (append / 付与).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AppendRule {
    pub source: u32,
    pub ratio: f32,
    pub rotate: bool,
    pub translate: bool,
    /// Copy the source's local transform rather than its animated value.
    pub local: bool,
}

/// Euler limits of one IK link, radians, in the link's parent-aligned frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkLimits {
    pub min: Vec3A,
    pub max: Vec3A,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkLink {
    pub bone: u32,
    pub limits: Option<LinkLimits>,
}

/// One CCD IK solver.
#[derive(Debug, Clone, PartialEq)]
pub struct IkSolver {
    /// The IK bone: its position is the goal.
    pub bone: u32,
    /// The effector moved onto the goal.
    pub target: u32,
    /// Iterations to run (the authored count raised as MMD raises it, see `ik`).
    pub iterations: u32,
    /// The count stored in the file.
    pub authored_iterations: u32,
    /// Per-step angle cap unit, radians (PMD's stored quarter already multiplied by 4).
    pub unit_angle: f32,
    /// From the effector side to the root side.
    pub links: Vec<IkLink>,
    /// Bones to refresh while solving (the links and the bones between them and the
    /// effector), in evaluation order.
    pub(crate) chain: Vec<u32>,
    /// Per link: where in `chain` the refresh after that link's step starts (bones before it
    /// do not depend on it).
    pub(crate) chain_from: Vec<u32>,
    /// Bones to refresh once the solve ends: everything whose world matrix depends on a link
    /// (descendants and append followers), in evaluation order, restricted to bones already
    /// evaluated when the solver runs.
    pub(crate) dependents: Vec<u32>,
    /// Per link, in link order: what its steps need (`ik::plan`).
    pub(crate) plans: Vec<crate::ik::LinkPlan>,
    /// The chain is a plain parent path, solved by the register-held loop
    /// (`ik::plan::is_plain_path`).
    pub(crate) plain_path: bool,
}

/// One deform layer's work: a world pass over `bones`, then `solvers` in order (run as
/// `ik_runs`), then a refresh of the `post_ik` bones (ranges into [`Model::order`],
/// [`Model::solvers`], [`Model::ik_runs`] and [`Model::post_ik`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Step {
    pub(crate) bones: Range<usize>,
    pub(crate) solvers: Range<usize>,
    pub(crate) ik_runs: Range<usize>,
    pub(crate) post_ik: Range<usize>,
}

/// One entry of a step's IK schedule: solver `first` alone (`second` is [`NONE`]), or two
/// independent plain-path solvers solved side by side (`ik::solve_pair`), with the results of
/// solving `first` and then `second`. A pair may run ahead of solvers listed between its two
/// only when the order makes no difference (`ik_runs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IkRun {
    pub(crate) first: u32,
    pub(crate) second: u32,
    /// The pair's solvers have the same shape (`ik::plan::same_shape`), so their steps can
    /// run in lockstep, two lanes of each vector instruction.
    pub(crate) lockstep: bool,
}

/// A morph, resolved to indices.
#[derive(Debug, Clone, PartialEq)]
pub enum MorphKind {
    /// (morph, ratio); nested groups are dropped at compile time as MMD ignores them.
    Group(Vec<(u32, f32)>),
    /// Flip (PMX 2.1): weight w picks one child, applied with its ratio.
    Flip(Vec<(u32, f32)>),
    /// (bone, translation, rotation).
    Bone(Vec<(u32, Vec3A, Quat)>),
    /// (vertex, offset): added to rest positions before skinning.
    Vertex(Vec<(u32, Vec3A)>),
    /// UV channel (0 = main, 1..=4 additional) and (vertex, offset).
    Uv(u8, Vec<(u32, Vec4)>),
    /// Material offsets.
    Material(Vec<crate::material::MaterialOffset>),
    /// Rigid-body impulses (applied by physics): (body, local, velocity, torque).
    Impulse(Vec<(u32, bool, Vec3A, Vec3A)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Morph {
    pub name: String,
    /// Shift-JIS name, as VMD morph keys name it.
    pub sjis: Vec<u8>,
    pub panel: u8,
    pub kind: MorphKind,
}

/// Where the model came from; a few MMD rules differ between formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    Pmx,
    Pmd,
}

/// The two IK rules on which MMD's captures and the only PMD reference disagree.
///
/// PMX models follow the MMD 9.32 captures (`ik` lists the cases). For PMD no capture
/// exists, and the one runtime that evaluates PMD next to MMD's PMX rules (babylon-mmd)
/// differs in exactly these two places; its PMD results are matched to within 0.05 on 99.85 %
/// (Gene_light.pmd) and 99.98 % (miku_v2) of IK bone-frames with its rules, 98.8 % and 98.9 %
/// with the PMX ones. Whether MMD's PMD path shares its PMX rules is unverified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IkRules {
    /// A solver starts from its effector's position as the effector's own world pass left it,
    /// even when an earlier solver has since moved the effector's parents (MMD captures
    /// `layered-*`); otherwise from its current position.
    pub stale_effector: bool,
    /// The whole solve stops when a link sees the effector and the goal in the same direction
    /// (MMD captures `limits-*-aligned`, `limited-n*`); otherwise only that link's step is
    /// skipped.
    pub stop_when_aligned: bool,
}

impl IkRules {
    /// MikuMikuDance 9.32 on PMX models, as captured.
    pub const MMD_PMX: IkRules = IkRules {
        stale_effector: true,
        stop_when_aligned: true,
    };
    /// PMD models: the PMD reference's rules (see the type's documentation).
    pub const PMD: IkRules = IkRules {
        stale_effector: false,
        stop_when_aligned: false,
    };

    /// The rules a model of this format is evaluated with.
    pub fn for_source(source: SourceFormat) -> IkRules {
        match source {
            SourceFormat::Pmx => IkRules::MMD_PMX,
            SourceFormat::Pmd => IkRules::PMD,
        }
    }
}

/// The compiled model. Bone arrays are indexed by file bone index. Immutable once compiled:
/// everything it derives (the evaluation schedule above all) is read through accessors.
#[derive(Debug, Clone)]
pub struct Model {
    /// Identity (unique in the process; a clone keeps it), which bound motions and sized
    /// instances remember.
    pub(crate) id: u64,
    pub(crate) name: String,
    pub(crate) source: SourceFormat,
    /// The IK rules this model is solved with (by format; may be changed before evaluating).
    pub(crate) ik_rules: IkRules,
    pub(crate) bone_names: Vec<String>,
    /// Shift-JIS bone names (full length), as VMD bone keys name them.
    pub(crate) bone_sjis: Vec<Vec<u8>>,
    pub(crate) parent: Vec<u32>,
    /// Rest position in model space.
    pub(crate) rest: Vec<Vec3A>,
    /// Rest position minus the parent's rest position.
    pub(crate) offset: Vec<Vec3A>,
    pub(crate) layer: Vec<i32>,
    pub(crate) after_physics: Vec<bool>,
    pub(crate) append: Vec<Option<AppendRule>>,
    /// Unit axis that animated rotations are projected onto (PMX fixed axis).
    pub(crate) fixed_axis: Vec<Option<Vec3A>>,
    /// True for bones that are a link of some IK solver.
    pub(crate) is_ik_link: Vec<bool>,
    /// Bone → index of the solver whose IK bone it is.
    pub(crate) solver_of: Vec<Option<u32>>,
    /// All bones in evaluation order (after-physics flag, then layer, then file index).
    pub(crate) order: Vec<u32>,
    /// Bone → position in `order`.
    pub(crate) order_pos: Vec<u32>,
    /// Solvers in the order MMD runs them.
    pub(crate) solvers: Vec<IkSolver>,
    /// Each step's solvers as they are run here, independent pairs side by side.
    pub(crate) ik_runs: Vec<IkRun>,
    /// The before-physics pass, layer by layer.
    pub(crate) before_physics: Vec<Step>,
    /// The after-physics pass, layer by layer.
    pub(crate) after_physics_steps: Vec<Step>,
    /// Bones evaluated before their parent (their parent's value lags a frame, as in MMD).
    pub(crate) order_dependent: Vec<bool>,
    /// IK links that keep their IK rotation from one evaluation to the next: links that are,
    /// or lie below, a bone whose grant copies an IK link (see `ik`).
    pub(crate) ik_retained: Vec<bool>,
    /// IK effectors (not links) that are, or lie below, a bone whose grant copies an IK link:
    /// refreshed, grant included, after the solvers of their own step (see `ik`).
    pub(crate) post_ik: Vec<u32>,
    /// IK effectors evaluated in a later step than their solver: their solver starts from
    /// their position at the end of the previous evaluation.
    pub(crate) late_effectors: Vec<u32>,
    /// The IK effectors (solver targets), each once.
    pub(crate) effectors: Vec<u32>,
    /// Bone → its index in `effectors`, or [`NONE`].
    pub(crate) effector_slot: Vec<u32>,
    /// Per bone, what its world-pass update looks at: [`PASS_GRANT`], [`PASS_EFFECTOR`].
    pub(crate) pass_flags: Vec<u8>,
    pub(crate) morphs: Vec<Morph>,
    /// The morphs the morph pass reads (`morph::apply`): group and flip morphs, which expand
    /// into other morphs' weights, then bone and material morphs, which it applies. Vertex,
    /// UV and impulse morphs are left to deformation and physics.
    pub(crate) expanding_morphs: Vec<u32>,
    pub(crate) posing_morphs: Vec<u32>,
    /// Base material values, for material morphs.
    pub(crate) materials: Vec<crate::material::MaterialValues>,
    /// Problems found while compiling (bad indices dropped, cycles broken).
    pub(crate) diagnostics: Vec<String>,
}

/// What a format-specific compiler provides; [`Model::assemble`] derives the rest (rest
/// offsets, the IK-link mask, the evaluation schedule).
pub(crate) struct Parts {
    pub name: String,
    pub source: SourceFormat,
    pub bone_names: Vec<String>,
    pub bone_sjis: Vec<Vec<u8>>,
    pub parent: Vec<u32>,
    pub rest: Vec<Vec3A>,
    pub layer: Vec<i32>,
    pub after_physics: Vec<bool>,
    pub append: Vec<Option<AppendRule>>,
    pub fixed_axis: Vec<Option<Vec3A>>,
    pub solvers: Vec<IkSolver>,
    pub morphs: Vec<Morph>,
    pub materials: Vec<crate::material::MaterialValues>,
    pub diagnostics: Vec<String>,
}

/// Indices of the morphs of a kind `keep` accepts.
fn morphs_where(morphs: &[Morph], keep: impl Fn(&MorphKind) -> bool) -> Vec<u32> {
    (0..morphs.len() as u32)
        .filter(|&m| keep(&morphs[m as usize].kind))
        .collect()
}

impl Model {
    /// Build the model from a format's parts. `solver_list` (IK bones in file list order,
    /// PMD) keeps that order for the solvers of one step instead of sorting them by bone.
    pub(crate) fn assemble(parts: Parts, solver_list: Option<&[u32]>) -> Model {
        let n = parts.parent.len();
        let (parent, rest) = (&parts.parent, &parts.rest);
        let offset = (0..n)
            .map(|i| {
                if parent[i] == NONE {
                    rest[i]
                } else {
                    rest[i] - rest[parent[i] as usize]
                }
            })
            .collect();
        let mut is_ik_link = vec![false; n];
        for l in parts.solvers.iter().flat_map(|s| &s.links) {
            is_ik_link[l.bone as usize] = true;
        }
        let mut model = Model {
            id: crate::identity::next(),
            name: parts.name,
            source: parts.source,
            ik_rules: IkRules::for_source(parts.source),
            bone_names: parts.bone_names,
            bone_sjis: parts.bone_sjis,
            parent: parts.parent,
            rest: parts.rest,
            offset,
            layer: parts.layer,
            after_physics: parts.after_physics,
            append: parts.append,
            fixed_axis: parts.fixed_axis,
            is_ik_link,
            solver_of: Vec::new(),
            order: Vec::new(),
            order_pos: Vec::new(),
            solvers: parts.solvers,
            ik_runs: Vec::new(),
            before_physics: Vec::new(),
            after_physics_steps: Vec::new(),
            order_dependent: Vec::new(),
            ik_retained: Vec::new(),
            post_ik: Vec::new(),
            late_effectors: Vec::new(),
            effectors: Vec::new(),
            effector_slot: Vec::new(),
            pass_flags: Vec::new(),
            expanding_morphs: morphs_where(&parts.morphs, |k| {
                matches!(k, MorphKind::Group(_) | MorphKind::Flip(_))
            }),
            posing_morphs: morphs_where(&parts.morphs, |k| {
                matches!(k, MorphKind::Bone(_) | MorphKind::Material(_))
            }),
            morphs: parts.morphs,
            materials: parts.materials,
            diagnostics: parts.diagnostics,
        };
        order::schedule(&mut model, solver_list);
        model
    }

    /// Chain slots and links an instance needs for the solvers that run side by side (the
    /// largest run of `ik_runs`).
    pub(crate) fn side_by_side_sizes(&self) -> (usize, usize) {
        let run_sizes = |r: &IkRun| {
            [r.first, r.second]
                .into_iter()
                .filter(|&si| si != NONE)
                .map(|si| &self.solvers[si as usize])
                .fold((0, 0), |(c, l), s| (c + s.chain.len(), l + s.links.len()))
        };
        self.ik_runs
            .iter()
            .map(run_sizes)
            .fold((0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)))
    }

    /// Whether an evaluation reads state the previous evaluation of the same instance left:
    /// IK rotations kept between evaluations (`ik_retained`), effectors whose solver starts
    /// from their last position (`late_effectors`), or bones evaluated before their parent
    /// (`order_dependent`, whose parent lags a frame). When false, a frame's pose does not
    /// depend on which frames the instance evaluated before, so a batch of frames can be
    /// split between fresh instances (the Python module's threads) with the same bits.
    pub fn carries_state(&self) -> bool {
        self.ik_retained.iter().any(|&r| r)
            || !self.late_effectors.is_empty()
            || self.order_dependent.iter().any(|&d| d)
    }

    pub fn bone_count(&self) -> usize {
        self.parent.len()
    }

    pub fn morph_count(&self) -> usize {
        self.morphs.len()
    }

    pub fn find_bone(&self, name: &str) -> Option<usize> {
        self.bone_names.iter().position(|n| n == name)
    }

    pub fn find_morph(&self, name: &str) -> Option<usize> {
        self.morphs.iter().position(|m| m.name == name)
    }

    /// The IK solver index whose IK bone has this Shift-JIS name (VMD property keys).
    pub(crate) fn find_solver_by_sjis(&self, name: &[u8]) -> Option<usize> {
        self.solvers
            .iter()
            .position(|s| self.bone_sjis[s.bone as usize] == name)
    }

    /// The model's name, as its file gives it.
    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The format the model was compiled from.
    #[inline]
    pub fn source(&self) -> SourceFormat {
        self.source
    }

    /// The IK rules the model is solved with (by format).
    #[inline]
    pub fn ik_rules(&self) -> IkRules {
        self.ik_rules
    }

    /// Bone names, by file bone index.
    #[inline]
    pub fn bone_names(&self) -> &[String] {
        &self.bone_names
    }

    /// Shift-JIS bone names (full length), as VMD bone keys name them.
    #[inline]
    pub fn bone_sjis(&self) -> &[Vec<u8>] {
        &self.bone_sjis
    }

    /// Each bone's parent, or [`NONE`] for a root.
    #[inline]
    pub fn parents(&self) -> &[u32] {
        &self.parent
    }

    /// Each bone's rest position in model space.
    #[inline]
    pub fn rest_positions(&self) -> &[Vec3A] {
        &self.rest
    }

    /// Each bone's rest position minus its parent's (its own for a root).
    #[inline]
    pub fn offsets(&self) -> &[Vec3A] {
        &self.offset
    }

    /// Each bone's deform layer (変形階層).
    #[inline]
    pub fn layers(&self) -> &[i32] {
        &self.layer
    }

    /// Per bone: deformed after physics.
    #[inline]
    pub fn after_physics(&self) -> &[bool] {
        &self.after_physics
    }

    /// Each bone's position in evaluation order (after-physics flag, then layer, then file
    /// index).
    #[inline]
    pub fn order_positions(&self) -> &[u32] {
        &self.order_pos
    }

    /// Per bone: evaluated before its parent, so the parent's value it sees lags a frame
    /// (as in MMD).
    #[inline]
    pub fn order_dependent(&self) -> &[bool] {
        &self.order_dependent
    }

    /// The IK solvers, in the order MMD runs them.
    #[inline]
    pub fn solvers(&self) -> &[IkSolver] {
        &self.solvers
    }

    /// The morphs, by file morph index.
    #[inline]
    pub fn morphs(&self) -> &[Morph] {
        &self.morphs
    }

    /// Base material values, by file material index (what material morphs start from).
    #[inline]
    pub fn materials(&self) -> &[crate::material::MaterialValues] {
        &self.materials
    }

    /// Problems found while compiling (bad indices dropped, cycles broken).
    #[inline]
    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// Each step's solvers as they are run, as (first, second or [`NONE`], lockstep):
    /// independent pairs side by side, in lockstep when of the same shape (`testing`
    /// feature).
    #[cfg(feature = "testing")]
    pub fn ik_runs(&self) -> impl Iterator<Item = (u32, u32, bool)> + '_ {
        self.ik_runs.iter().map(|r| (r.first, r.second, r.lockstep))
    }

    /// Solve with other IK rules (`testing` feature).
    #[cfg(feature = "testing")]
    pub fn set_ik_rules(&mut self, rules: IkRules) {
        self.ik_rules = rules;
    }

    /// This model with every step's solvers run one at a time, in MMD's order, none paired
    /// (`testing` feature: what pairing must not change).
    #[cfg(feature = "testing")]
    pub fn solving_one_at_a_time(&self) -> Model {
        let mut m = self.clone();
        let mut runs = Vec::new();
        for step in m
            .before_physics
            .iter_mut()
            .chain(m.after_physics_steps.iter_mut())
        {
            let start = runs.len();
            runs.extend(step.solvers.clone().map(|s| IkRun {
                first: s as u32,
                second: NONE,
                lockstep: false,
            }));
            step.ik_runs = start..runs.len();
        }
        m.ik_runs = runs;
        m
    }

    /// This model with its same-shape pairs solved as two scalar solves side by side rather
    /// than in two-lane rounds (`testing` feature).
    #[cfg(feature = "testing")]
    pub fn without_lockstep(&self) -> Model {
        let mut m = self.clone();
        for run in &mut m.ik_runs {
            run.lockstep = false;
        }
        m
    }
}
