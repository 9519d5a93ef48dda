//! The soundtrack decoded to PCM (`odori_video::audio::decode_pcm`): the samples are the
//! file's, bit for bit (the WAV is written here, so the evidence is the bytes put in it).

/// A 16-bit stereo WAV of `frames` frames at `rate`: left counts up, right counts down.
fn wav(path: &std::path::Path, rate: u32, frames: u32) -> Vec<i16> {
    let mut samples = Vec::new();
    for i in 0..frames {
        samples.push((i % 30_000) as i16);
        samples.push(-((i % 30_000) as i16));
    }
    let data: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // PCM
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 4).to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&(data.len() as u32).to_le_bytes());
    b.extend_from_slice(&data);
    std::fs::write(path, b).unwrap();
    samples
}

#[test]
fn wav_decodes_to_its_own_samples() {
    let dir = std::env::temp_dir().join(format!("odori-sound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ramp.wav");
    let written = wav(&path, 44_100, 44_100 * 3);
    let pcm = odori_video::audio::decode_pcm(&path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!((pcm.sample_rate, pcm.channels), (44_100, 2));
    assert_eq!(pcm.samples.len(), written.len());
    assert!(
        pcm.samples == written,
        "decoded samples differ from the file's"
    );
}
