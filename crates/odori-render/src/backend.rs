//! Which renderer draws: the user's `--backend` and the adapters wgpu offers, decided by one
//! pure function ([`choose`]) so the rule is tested on adapter lists without opening any.
//!
//! The rule: a hardware adapter when there is one; otherwise odori's CPU rasteriser, never a
//! software adapter. wgpu reports [`wgpu::DeviceType::Cpu`] for Mesa's lavapipe and llvmpipe,
//! SwiftShader and WARP: general-purpose rasterisers that run MMD's shaders slower than
//! odori's own rasteriser, which is made for exactly these passes. `gpu` still forces wgpu,
//! on whatever adapter there is.

use std::fmt;

/// Which renderer to use (`--backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// A hardware adapter when there is one, else the CPU rasteriser (see [`choose`]).
    #[default]
    Auto,
    /// wgpu only, on the best adapter there is (software ones included): none is an error.
    Gpu,
    /// odori's own CPU rasteriser.
    Cpu,
}

/// What [`choose`] needs to know of an adapter (wgpu's `AdapterInfo` has fields a test
/// cannot fill portably).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: wgpu::Backend,
    pub device_type: wgpu::DeviceType,
}

impl From<&wgpu::AdapterInfo> for AdapterSummary {
    fn from(info: &wgpu::AdapterInfo) -> Self {
        AdapterSummary {
            name: info.name.clone(),
            backend: info.backend,
            device_type: info.device_type,
        }
    }
}

impl fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({:?}, {:?})",
            self.name, self.backend, self.device_type
        )
    }
}

impl AdapterSummary {
    /// A rasteriser running on the CPU (lavapipe, llvmpipe, SwiftShader, WARP).
    pub fn is_software(&self) -> bool {
        self.device_type == wgpu::DeviceType::Cpu
    }

    /// Lower is preferred: a discrete GPU over an integrated one over a virtual one, any
    /// of them over a software rasteriser.
    fn rank(&self) -> u8 {
        match self.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Other => 3,
            wgpu::DeviceType::Cpu => 4,
        }
    }
}

/// What draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// wgpu on the adapter at this index of the list given to [`choose`].
    Adapter(usize),
    /// odori's CPU rasteriser.
    Cpu,
}

/// The renderer chosen and why, for the start-up line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub pick: Pick,
    pub why: String,
}

/// Choose the renderer for `backend` from the `adapters` wgpu offers. `Err` only for
/// [`Backend::Gpu`] with no adapter at all (the text says what was looked at is up to the
/// caller).
pub fn choose(backend: Backend, adapters: &[AdapterSummary]) -> Result<Decision, String> {
    let best = (adapters.iter().enumerate()).min_by_key(|(_, a)| a.rank());
    match backend {
        Backend::Cpu => Ok(Decision {
            pick: Pick::Cpu,
            why: "asked for (backend cpu)".into(),
        }),
        Backend::Gpu => match best {
            Some((i, a)) => Ok(Decision {
                pick: Pick::Adapter(i),
                why: format!("asked for (backend gpu); {}", adapter_kind(a)),
            }),
            None => Err("no adapter at all".into()),
        },
        Backend::Auto => Ok(match best {
            Some((i, a)) if !a.is_software() => Decision {
                pick: Pick::Adapter(i),
                why: "a hardware adapter is the fastest".into(),
            },
            Some(_) => Decision {
                pick: Pick::Cpu,
                why: format!(
                    "only software adapters ({}): odori's CPU rasteriser draws faster than \
                     they do (backend gpu uses them anyway)",
                    (adapters.iter().map(|a| a.to_string()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            None => Decision {
                pick: Pick::Cpu,
                why: "no GPU adapter; for GPU rendering install the GPU's driver".into(),
            },
        }),
    }
}

fn adapter_kind(a: &AdapterSummary) -> &'static str {
    if a.is_software() {
        "a software adapter"
    } else {
        "a hardware adapter"
    }
}

#[cfg(test)]
mod tests {
    //! The rule of the module doc, on adapter lists as wgpu reports them on the machines
    //! odori meets (names and device types as Mesa's and NVIDIA's drivers give them): each
    //! case names the renderer it must pick, so a changed rule fails here.
    use super::*;
    use wgpu::{Backend as B, DeviceType as T};

    fn adapter(name: &str, backend: B, device_type: T) -> AdapterSummary {
        AdapterSummary {
            name: name.into(),
            backend,
            device_type,
        }
    }

    fn lavapipe() -> AdapterSummary {
        adapter("llvmpipe (LLVM 15.0.6, 256 bits)", B::Vulkan, T::Cpu)
    }

    #[test]
    fn only_a_software_adapter_draws_on_the_cpu_rasteriser() {
        let list = [lavapipe()];
        let d = choose(Backend::Auto, &list).unwrap();
        assert_eq!(d.pick, Pick::Cpu);
        assert!(d.why.contains("llvmpipe"), "{}", d.why);
        let gl = [adapter("llvmpipe (LLVM 15.0.6, 256 bits)", B::Gl, T::Cpu)];
        assert_eq!(choose(Backend::Auto, &gl).unwrap().pick, Pick::Cpu);
    }

    #[test]
    fn backend_gpu_forces_the_software_adapter() {
        let list = [lavapipe()];
        let d = choose(Backend::Gpu, &list).unwrap();
        assert_eq!(d.pick, Pick::Adapter(0));
        assert!(choose(Backend::Gpu, &[]).is_err());
    }

    #[test]
    fn a_hardware_adapter_wins_over_software_ones() {
        let list = [
            lavapipe(),
            adapter("Intel(R) UHD Graphics 630", B::Vulkan, T::IntegratedGpu),
            adapter("NVIDIA H200", B::Vulkan, T::DiscreteGpu),
        ];
        assert_eq!(choose(Backend::Auto, &list).unwrap().pick, Pick::Adapter(2));
        assert_eq!(choose(Backend::Gpu, &list).unwrap().pick, Pick::Adapter(2));
    }

    #[test]
    fn no_adapter_or_backend_cpu_draws_on_the_cpu_rasteriser() {
        assert_eq!(choose(Backend::Auto, &[]).unwrap().pick, Pick::Cpu);
        let list = [adapter("NVIDIA H200", B::Vulkan, T::DiscreteGpu)];
        assert_eq!(choose(Backend::Cpu, &list).unwrap().pick, Pick::Cpu);
    }
}
