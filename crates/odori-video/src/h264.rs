//! H.264 encoding in-process with OpenH264 (compiled from source by `openh264-sys2`; its
//! assembly kernels are used when `nasm` is installed, plain C otherwise), so MP4 output works
//! on a machine with no ffmpeg.

use openh264::OpenH264API;
use openh264::encoder::{
    BitRate, Complexity, Encoder, EncoderConfig, FrameRate, IntraFramePeriod, RateControlMode,
    UsageType,
};
use openh264::formats::{RgbaSliceU8, YUVBuffer};

pub struct H264Encoder {
    encoder: Encoder,
    yuv: YUVBuffer,
    width: usize,
    height: usize,
}

impl H264Encoder {
    /// `width` and `height` must be even (4:2:0 chroma). The bitrate scales with the pixel
    /// rate (≈ 0.1 bit per pixel per frame: 1280×720 at 30 fps ≈ 2.8 Mbit/s).
    pub fn new(width: u32, height: u32, fps: u32) -> Result<H264Encoder, String> {
        let bps = (width as u64 * height as u64 * fps as u64 / 10).clamp(500_000, 40_000_000);
        let config = EncoderConfig::new()
            .bitrate(BitRate::from_bps(bps as u32))
            .max_frame_rate(FrameRate::from_hz(fps as f32))
            .rate_control_mode(RateControlMode::Off)
            .usage_type(UsageType::CameraVideoRealTime)
            .complexity(Complexity::Low)
            .skip_frames(false)
            // A key frame every 2 s keeps seeking snappy.
            .intra_frame_period(IntraFramePeriod::from_num_frames(fps * 2));
        let encoder = Encoder::with_api_config(OpenH264API::from_source(), config)
            .map_err(|e| format!("OpenH264: {e}"))?;
        Ok(H264Encoder {
            encoder,
            yuv: YUVBuffer::new(width as usize, height as usize),
            width: width as usize,
            height: height as usize,
        })
    }

    /// Encode one RGBA8 frame; returns its Annex B bytes.
    pub fn encode(&mut self, rgba: &[u8]) -> Result<Vec<u8>, String> {
        self.yuv
            .read_rgba8(RgbaSliceU8::new(rgba, (self.width, self.height)));
        let bits = self
            .encoder
            .encode(&self.yuv)
            .map_err(|e| format!("OpenH264: {e}"))?;
        Ok(bits.to_vec())
    }
}
