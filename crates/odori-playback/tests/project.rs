//! Projects (`.pmm`): MMD's sample project opened as a user would (its models found, its
//! accessories missing), path resolution over folders built here, outside parents that point
//! at themselves or nowhere.

use odori_format::pmm::{self, ParentRef};
use odori_playback::project::Project;
use odori_playback::project::paths::{Resolved, Resolver};
use std::path::{Path, PathBuf};

const SAMPLE: &str = "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm";

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("odori-project-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn touch(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, b"x").unwrap();
}

/// The sample as MMD's folder layout has it (the project in `UserFile/`, paths relative to
/// MMD's folder): every model found beside it, each of the 29 accessories missing with one
/// warning naming its file. Evidence: the folder's listing (SOURCE.md: accessories absent).
#[test]
fn sample_finds_its_models_and_names_its_missing_accessories() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let project = Project::load(&file, &[]).unwrap();
    assert_eq!(project.models.len(), 11);
    for m in &project.models {
        let found = m
            .file
            .path()
            .unwrap_or_else(|| panic!("{}: {}", m.name, m.file));
        assert!(found.ends_with(
            Path::new("UserFile/Model").join(m.file.path().unwrap().file_name().unwrap())
        ));
        assert!(!m.motion.bones.is_empty());
    }
    assert_eq!(project.accessories.len(), 29);
    let missing: Vec<&String> = project
        .warnings
        .iter()
        .filter(|w| w.starts_with("accessory ") && w.contains("not found"))
        .collect();
    assert_eq!(missing.len(), 29, "{:#?}", project.warnings);
    assert!(missing[0].contains("stage01.x"), "{}", missing[0]);
    assert_eq!(project.output_size, (512, 288));
    assert_eq!(
        project.camera.cameras.len(),
        1 + project.pmm.camera.keys.len()
    );
    for w in &project.warnings {
        eprintln!("warning: {w}");
    }
}

/// The resolution order of `paths`: as given relative to a root, then by tails; absolute
/// Windows paths by their tails; case-blind components; search folders after the project's
/// own; nothing through `..` or a link leading outside the roots.
#[test]
fn stored_paths_resolve_by_their_tails_inside_the_given_folders_only() {
    let root = temp_dir("paths");
    let mmd = root.join("a/MikuMikuDance");
    let project = mmd.join("UserFile/project.pmm");
    touch(&project);
    touch(&mmd.join("UserFile/Model/初音ミク.pmd"));
    touch(&mmd.join("UserFile/Accessory/Stage01.X"));
    let search = root.join("elsewhere");
    touch(&search.join("only_here.pmx"));
    touch(&root.join("secret.pmd"));
    let r = Resolver::new(&project, std::slice::from_ref(&search));
    let sjis = |s: &str| odori_format::sjis::encode_sjis(s);
    let found = |s: &str| r.resolve(&sjis(s)).path().map(Path::to_path_buf);
    let miku = mmd
        .join("UserFile/Model/初音ミク.pmd")
        .canonicalize()
        .unwrap();
    assert_eq!(found("UserFile\\Model\\初音ミク.pmd"), Some(miku.clone()));
    assert_eq!(
        found("C:\\tool\\MikuMikuDance_v926x64\\UserFile\\Model\\初音ミク.pmd"),
        Some(miku.clone())
    );
    // A bare name is looked for directly under each root (no recursive search).
    touch(&mmd.join("UserFile/bare.pmd"));
    assert_eq!(
        found("D:\\models\\bare.pmd"),
        Some(mmd.join("UserFile/bare.pmd").canonicalize().unwrap())
    );
    assert_eq!(
        found("userfile\\accessory\\stage01.x"),
        Some(
            mmd.join("UserFile/Accessory/Stage01.X")
                .canonicalize()
                .unwrap()
        )
    );
    assert_eq!(
        found("C:\\x\\only_here.pmx"),
        Some(search.join("only_here.pmx").canonicalize().unwrap())
    );
    // `root` is three levels above the project's folder: outside the roots, never read.
    assert_eq!(found("..\\..\\..\\secret.pmd"), None);
    assert_eq!(found("secret.pmd"), None);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("secret.pmd"), mmd.join("UserFile/link.pmd")).unwrap();
        assert_eq!(found("UserFile\\link.pmd"), None);
    }
    match r.resolve(&sjis("UserFile\\Model\\無い.pmd")) {
        Resolved::Missing { stored, looked_in } => {
            assert_eq!(stored, "UserFile\\Model\\無い.pmd");
            assert_eq!(looked_in.len(), 4, "{looked_in:?}");
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// Outside parents in the sample re-pointed at the bone itself, and at a model that does not
/// exist: each ignored with a warning naming the model, bone and frame.
#[test]
fn outside_parents_pointing_at_themselves_or_nowhere_are_warned() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let mut p = pmm::parse(&std::fs::read(&file).unwrap()).unwrap();
    let m = &mut p.models[2];
    let own_bone = m.outside_parent_bones[0];
    m.initial_model_key.outside_parents[0] = ParentRef {
        model: 2,
        bone: own_bone,
    };
    m.initial_model_key.outside_parents[1] = ParentRef { model: 40, bone: 0 };
    m.initial_model_key.outside_parents[2] = ParentRef { model: 3, bone: 0 };
    let bytes = pmm::write(&p).unwrap();
    let project = Project::from_pmm(&file, pmm::parse(&bytes).unwrap(), &[]);
    let about: Vec<&String> = project
        .warnings
        .iter()
        .filter(|w| w.contains("outside parent"))
        .collect();
    assert_eq!(about.len(), 2, "{about:#?}");
    assert!(about[0].contains("itself"), "{}", about[0]);
    assert!(about[1].contains("model 40"), "{}", about[1]);
    let ops = &project.models[2].outside_parents;
    assert_eq!(ops.len(), 1, "{ops:?}");
    assert_eq!(ops[0].frame, 0);
    assert_eq!(ops[0].parent.as_ref().unwrap().0, 3);
}
