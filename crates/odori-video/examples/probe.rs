//! Check an MP4 without ffmpeg: `probe FILE.mp4 [FRAME OUT.png]` prints each track (codec,
//! samples, duration) and optionally decodes video frame FRAME to a PNG.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: probe FILE.mp4 [FRAME OUT.png]");
        std::process::exit(2);
    };
    let bytes = std::fs::read(path).expect("readable file");
    let tracks = odori_video::probe::tracks(&bytes);
    for t in &tracks {
        println!(
            "{} {}: {} samples, {:.3} s{}",
            String::from_utf8_lossy(&t.handler),
            String::from_utf8_lossy(&t.codec),
            t.samples,
            t.seconds(),
            if t.width > 0 {
                format!(", {}x{}", t.width, t.height)
            } else {
                String::new()
            }
        );
    }
    if let (Some(frame), Some(out)) = (args.get(2), args.get(3)) {
        let video = tracks
            .iter()
            .find(|t| &t.codec == b"avc1")
            .expect("a video track");
        let (w, h, rgba) =
            odori_video::probe::decode_frame(&bytes, video, frame.parse().expect("frame number"))
                .expect("decodable frame");
        image::save_buffer(out, &rgba, w, h, image::ExtendedColorType::Rgba8).expect("PNG written");
        println!("frame {frame} → {out}");
    }
}
