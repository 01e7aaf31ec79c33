# Placement script for the 8-GPU boxes. The box as `nvidia-smi topo -m` shows it:
#        GPU0	GPU1	GPU2	GPU3	GPU4	GPU5	GPU6	GPU7	mlx5_0	mlx5_2	mlx5_1	mlx5_3	CPU Affinity
#        GPU0	 X 	NV1	NV1	NV2	NV2	SOC	SOC	SOC	PIX	PHB	SOC	SOC	0-19,40-59
#        GPU1	NV1	 X 	NV2	NV1	SOC	NV2	SOC	SOC	PIX	PHB	SOC	SOC	0-19,40-59
#        GPU2	NV1	NV2	 X 	NV2	SOC	SOC	NV1	SOC	PHB	PIX	SOC	SOC	0-19,40-59
#        GPU3	NV2	NV1	NV2	 X 	SOC	SOC	SOC	NV1	PHB	PIX	SOC	SOC	0-19,40-59
#        GPU4	NV2	SOC	SOC	SOC	 X 	NV1	NV1	NV2	SOC	SOC	PIX	PHB	20-39,60-79
#        GPU5	SOC	NV2	SOC	SOC	NV1	 X 	NV2	NV1	SOC	SOC	PIX	PHB	20-39,60-79
#        GPU6	SOC	SOC	NV1	SOC	NV1	NV2	 X 	NV2	SOC	SOC	PHB	PIX	20-39,60-79
#        GPU7	SOC	SOC	SOC	NV1	NV2	NV1	NV2	 X 	SOC	SOC	PHB	PIX	20-39,60-79
#        mlx5_0	PIX	PIX	PHB	PHB	SOC	SOC	SOC	SOC	 X 	PHB	SOC	SOC
#        mlx5_2	PHB	PHB	PIX	PIX	SOC	SOC	SOC	SOC	PHB	 X 	SOC	SOC
#        mlx5_1	SOC	SOC	SOC	SOC	PIX	PIX	PHB	PHB	SOC	SOC	 X 	PHB
#        mlx5_3	SOC	SOC	SOC	SOC	PHB	PHB	PIX	PIX	SOC	SOC	PHB	 X 
#
# Legend:
#
#   X   = Self
#   SOC  = Connection traversing PCIe as well as the SMP link between CPU sockets(e.g. QPI)
#   PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
#   PXB  = Connection traversing multiple PCIe switches (without traversing the PCIe Host Bridge)
#   PIX  = Connection traversing a single PCIe switch
#   NV#  = Connection traversing a bonded set of # NVLinks

export CUDA_DEVICE_ORDER=PCI_BUS_ID
case $SLURM_LOCALID in
  0|1) export UCX_NET_DEVICES=mlx5_0:1 ;;
esac
