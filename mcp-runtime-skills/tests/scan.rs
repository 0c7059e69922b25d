//! Reading skills folders: what is served, and every way a folder is refused (links, limits,
//! names), each with the file and the rule in its message.

use mcp_runtime_skills::rules::{MAX_BYTES, MAX_FILES};
use mcp_runtime_skills::{ScanLimits, digest, scan};
use std::path::{Path, PathBuf};

/// A fresh folder for one test, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!("mcp-skills-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Folder(dir)
    }
    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Self {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
        self
    }
    fn skill(&self, path: &str) -> &Self {
        let name = path.rsplit('/').next().unwrap();
        self.write(
            &format!("{path}/SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill\n---\n# {name}\n"),
        )
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn error(folder: &Folder) -> String {
    scan(folder.path(), ScanLimits::default())
        .expect_err("the folder is refused")
        .to_string()
}

#[test]
fn skills_nested_skills_and_their_files_are_read_in_order_with_digests() {
    let f = Folder::new("order");
    f.skill("pdf")
        .write("pdf/templates/b.md", "b")
        .write("pdf/templates/a.md", "a")
        .write("pdf/logo.png", [0x89u8, b'P', b'N', b'G', 0])
        .skill("acme/billing/refunds")
        .skill("pdf/templates/regional")
        .write("README.md", "outside every skill")
        .write("pdf/.secret", "dot files are left out")
        .write("pdf/.git/config", "and dot folders");
    let scanned = scan(f.path(), ScanLimits::default()).unwrap();
    let paths: Vec<&str> = scanned.skills.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        paths,
        ["acme/billing/refunds", "pdf", "pdf/templates/regional"]
    );
    let pdf = &scanned.skills[1];
    let rels: Vec<&str> = pdf.files.iter().map(|f| f.rel.as_str()).collect();
    assert_eq!(
        rels,
        [
            "SKILL.md",
            "logo.png",
            "templates/a.md",
            "templates/b.md",
            "templates/regional/SKILL.md"
        ]
    );
    assert_eq!(pdf.dirs, ["templates", "templates/regional"]);
    assert_eq!(pdf.files[2].digest, digest(b"a"));
    assert_eq!(pdf.files[0].mime, "text/markdown");
    assert!(pdf.files[0].text);
    assert_eq!(pdf.files[1].mime, "image/png");
    assert!(!pdf.files[1].text, "a NUL byte makes a file a blob");
    assert_eq!(pdf.frontmatter.name, "pdf");
    assert_eq!(scanned.ignored, [f.path().join("README.md")]);
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_refused_wherever_they_point() {
    let outside = Folder::new("outside");
    outside.write("secret.txt", "not a skill's");
    let f = Folder::new("links");
    f.skill("pdf");
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        f.path().join("pdf/leak.txt"),
    )
    .unwrap();
    let e = error(&f);
    assert!(e.contains("pdf/leak.txt: is a symbolic link"), "{e}");

    let g = Folder::new("dirlink");
    g.skill("pdf");
    std::os::unix::fs::symlink(outside.path(), g.path().join("pdf/more")).unwrap();
    assert!(error(&g).contains("pdf/more: is a symbolic link"));

    // Within the tree too: no link is followed.
    let h = Folder::new("innerlink");
    h.skill("pdf").write("pdf/a.md", "a");
    std::os::unix::fs::symlink("a.md", h.path().join("pdf/b.md")).unwrap();
    assert!(error(&h).contains("symbolic link"));
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking_the_scan() {
    let f = Folder::new("fifo");
    f.skill("pdf");
    let status = std::process::Command::new("mkfifo")
        .arg(f.path().join("pdf/pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    assert!(error(&f).contains("pdf/pipe: is neither a regular file nor a folder"));
}

#[test]
fn the_per_skill_limits_are_the_extensions() {
    let f = Folder::new("files");
    f.skill("many");
    for i in 1..MAX_FILES {
        f.write(&format!("many/f/{i:04}.txt"), "x");
    }
    assert!(
        scan(f.path(), ScanLimits::default()).is_ok(),
        "512 files are served"
    );
    f.write("many/f/one-more.txt", "x");
    let e = error(&f);
    assert!(e.contains("skill `many` has 513 files"), "{e}");
    assert!(e.contains("at most 512"), "{e}");

    let g = Folder::new("bytes");
    g.skill("big");
    let skill_md = std::fs::metadata(g.path().join("big/SKILL.md"))
        .unwrap()
        .len();
    g.write("big/blob.bin", vec![7u8; (MAX_BYTES - skill_md) as usize]);
    assert!(
        scan(g.path(), ScanLimits::default()).is_ok(),
        "16 MiB exactly are served"
    );
    g.write(
        "big/blob.bin",
        vec![7u8; (MAX_BYTES - skill_md + 1) as usize],
    );
    let e = error(&g);
    assert!(e.contains("holds 16777217 bytes"), "{e}");
}

#[test]
fn a_folder_larger_than_its_budget_is_refused_before_it_is_read_whole() {
    let f = Folder::new("budget");
    f.skill("a").write("a/big.bin", vec![0u8; 4096]);
    let limits = ScanLimits {
        total_bytes: 1000,
        ..ScanLimits::default()
    };
    let e = scan(f.path(), limits).unwrap_err().to_string();
    assert!(e.contains("more than 1000 bytes"), "{e}");
}

#[test]
fn names_paths_and_frontmatter_are_checked_with_the_file_and_rule() {
    let f = Folder::new("name");
    f.write(
        "Refunds/SKILL.md",
        "---\nname: Refunds\ndescription: x\n---\n",
    );
    let e = error(&f);
    assert!(e.contains("`Refunds` cannot be a skill's name"), "{e}");

    let g = Folder::new("mismatch");
    g.write(
        "refunds/SKILL.md",
        "---\nname: chargebacks\ndescription: x\n---\n",
    );
    let e = error(&g);
    assert!(
        e.contains("refunds/SKILL.md: the frontmatter names the skill `chargebacks`"),
        "{e}"
    );

    let h = Folder::new("prefix");
    h.skill("my team/refunds");
    assert!(error(&h).contains("the folder `my team`"));

    let i = Folder::new("root");
    i.write("SKILL.md", "---\nname: x\ndescription: x\n---\n");
    assert!(error(&i).contains("at the root of the skills folder"));

    let j = Folder::new("yaml");
    j.write(
        "a/SKILL.md",
        "---\nname: a\ndescription: x\nmetadata:\n  io.modelcontextprotocol/v: 1\n---\n",
    );
    let e = error(&j);
    assert!(
        e.contains("a/SKILL.md: skill `a`:") && e.contains("reserved"),
        "{e}"
    );

    let k = Folder::new("line");
    k.write(
        "a/SKILL.md",
        "---\nname: a\ndescription: &x y\nagain: *x\n---\n",
    );
    let e = error(&k);
    assert!(e.contains("a/SKILL.md:4: skill `a`: aliases"), "{e}");

    let l = Folder::new("binary");
    l.write("a/SKILL.md", b"---\nname: a\ndescription: x\n---\n\0");
    assert!(error(&l).contains("SKILL.md is not UTF-8 text"));
}

#[test]
fn control_characters_in_names_are_refused() {
    let f = Folder::new("control");
    f.skill("a").write("a/bell\u{7}.md", "x");
    let e = error(&f);
    assert!(e.contains("control character"), "{e}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_name_that_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let f = Folder::new("utf8");
    f.skill("a");
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
    std::fs::write(f.path().join("a").join(name), "x").unwrap();
    let e = error(&f);
    assert!(e.contains("not UTF-8"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_file_swapped_for_a_link_during_the_scan_never_leaks_what_the_link_points_at() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let outside = Folder::new("swap-outside");
    outside.write("secret.txt", "SECRET");
    let f = Folder::new("swap");
    f.skill("pdf").write("pdf/x.md", "plain");
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, x, tmp) = (
            stop.clone(),
            f.path().join("pdf/x.md"),
            f.path().join("pdf/.swap"),
        );
        let secret = outside.path().join("secret.txt");
        std::thread::spawn(move || {
            let mut link = false;
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::remove_file(&tmp);
                if link {
                    std::fs::write(&tmp, "plain").unwrap();
                } else {
                    std::os::unix::fs::symlink(&secret, &tmp).unwrap();
                }
                std::fs::rename(&tmp, &x).unwrap();
                link = !link;
            }
        })
    };
    let (mut served, mut refused) = (0, 0);
    for _ in 0..300 {
        match scan(f.path(), ScanLimits::default()) {
            Ok(scanned) => {
                for file in &scanned.skills[0].files {
                    assert_ne!(file.bytes, b"SECRET", "the link was followed");
                }
                served += 1;
            }
            Err(e) => {
                assert!(e.to_string().contains("symbolic link"), "{e}");
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(served + refused == 300);
}
