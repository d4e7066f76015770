/*
 * The Intel 82540EM (e1000) as a guest driver sees it: register offsets
 * in BAR0, their bits, the descriptor layouts, PHY registers and EEPROM
 * words (PCI/PCI-X Family of Gigabit Ethernet Controllers Software
 * Developer's Manual, 8254x). Shared by the device (hw/net/e1000.c),
 * its qtest and its fuzz target; no device internals.
 */
#ifndef HW_NET_E1000_REGS_H
#define HW_NET_E1000_REGS_H

#define E1000_DEVICE_ID         0x100e      /* 82540EM */
#define E1000_MMIO_SIZE         0x20000     /* BAR0 */
#define E1000_IO_SIZE           0x40        /* BAR1: IOADDR, IODATA */
#define E1000_IOADDR            0x00
#define E1000_IODATA            0x04

/* Registers (byte offsets in BAR0). */
#define E1000_CTRL      0x0000
#define E1000_STATUS    0x0008
#define E1000_EECD      0x0010
#define E1000_EERD      0x0014
#define E1000_CTRL_EXT  0x0018
#define E1000_MDIC      0x0020
#define E1000_VET       0x0038
#define E1000_ICR       0x00c0
#define E1000_ITR       0x00c4
#define E1000_ICS       0x00c8
#define E1000_IMS       0x00d0
#define E1000_IMC       0x00d8
#define E1000_IAM       0x00e0
#define E1000_RCTL      0x0100
#define E1000_TCTL      0x0400
#define E1000_TIPG      0x0410
#define E1000_LEDCTL    0x0e00
#define E1000_PBA       0x1000
#define E1000_RDBAL     0x2800
#define E1000_RDBAH     0x2804
#define E1000_RDLEN     0x2808
#define E1000_RDH       0x2810
#define E1000_RDT       0x2818
#define E1000_RDTR      0x2820
#define E1000_RXDCTL    0x2828
#define E1000_RADV      0x282c
#define E1000_TDBAL     0x3800
#define E1000_TDBAH     0x3804
#define E1000_TDLEN     0x3808
#define E1000_TDH       0x3810
#define E1000_TDT       0x3818
#define E1000_TIDV      0x3820
#define E1000_TXDCTL    0x3828
#define E1000_TADV      0x382c
#define E1000_STATS     0x4000      /* the statistics, 0x4000-0x40ff */
#define E1000_MPC       0x4010
#define E1000_PRC64     0x405c
#define E1000_PRC1522   0x4070
#define E1000_GPRC      0x4074
#define E1000_BPRC      0x4078
#define E1000_MPRC      0x407c
#define E1000_GPTC      0x4080
#define E1000_GORCL     0x4088
#define E1000_GORCH     0x408c
#define E1000_GOTCL     0x4090
#define E1000_GOTCH     0x4094
#define E1000_RNBC      0x40a0
#define E1000_ROC       0x40ac
#define E1000_TORL      0x40c0
#define E1000_TORH      0x40c4
#define E1000_TOTL      0x40c8
#define E1000_TOTH      0x40cc
#define E1000_TPR       0x40d0
#define E1000_TPT       0x40d4
#define E1000_PTC64     0x40d8
#define E1000_MPTC      0x40f0
#define E1000_BPTC      0x40f4
#define E1000_TSCTC     0x40f8
#define E1000_STATS_END 0x4100
#define E1000_RXCSUM    0x5000
#define E1000_MTA       0x5200      /* 128 words */
#define E1000_RA        0x5400      /* 16 pairs: RAL, RAH */
#define E1000_VFTA      0x5600      /* 128 words */
#define E1000_WUC       0x5800
#define E1000_MANC      0x5820

#define E1000_CTRL_SLU          0x00000040
#define E1000_CTRL_RST          0x04000000
#define E1000_CTRL_VME          0x40000000
#define E1000_CTRL_EXT_IAME     0x08000000

#define E1000_STATUS_FD         0x00000001
#define E1000_STATUS_LU         0x00000002

#define E1000_EECD_SK           0x00000001
#define E1000_EECD_CS           0x00000002
#define E1000_EECD_DI           0x00000004
#define E1000_EECD_DO           0x00000008
#define E1000_EECD_FWE          0x00000030
#define E1000_EECD_REQ          0x00000040
#define E1000_EECD_GNT          0x00000080
#define E1000_EECD_PRES         0x00000100

#define E1000_EERD_START        0x00000001
#define E1000_EERD_DONE         0x00000010
#define E1000_EERD_ADDR_SHIFT   8
#define E1000_EERD_DATA_SHIFT   16

#define E1000_MDIC_DATA         0x0000ffff
#define E1000_MDIC_REG_SHIFT    16
#define E1000_MDIC_PHY_SHIFT    21
#define E1000_MDIC_OP_WRITE     0x04000000
#define E1000_MDIC_OP_READ      0x08000000
#define E1000_MDIC_READY        0x10000000
#define E1000_MDIC_INT_EN       0x20000000
#define E1000_MDIC_ERROR        0x40000000

/* ICR, ICS, IMS, IMC bits. */
#define E1000_ICR_TXDW          0x00000001
#define E1000_ICR_TXQE          0x00000002
#define E1000_ICR_LSC           0x00000004
#define E1000_ICR_RXSEQ         0x00000008
#define E1000_ICR_RXDMT0        0x00000010
#define E1000_ICR_RXO           0x00000040
#define E1000_ICR_RXT0          0x00000080
#define E1000_ICR_MDAC          0x00000200

#define E1000_RCTL_EN           0x00000002
#define E1000_RCTL_SBP          0x00000004
#define E1000_RCTL_UPE          0x00000008
#define E1000_RCTL_MPE          0x00000010
#define E1000_RCTL_LPE          0x00000020
#define E1000_RCTL_RDMTS_SHIFT  8
#define E1000_RCTL_MO_SHIFT     12
#define E1000_RCTL_BAM          0x00008000
#define E1000_RCTL_SZ_SHIFT     16
#define E1000_RCTL_VFE          0x00040000
#define E1000_RCTL_BSEX         0x02000000
#define E1000_RCTL_SECRC        0x04000000

#define E1000_TCTL_EN           0x00000002

#define E1000_RAH_AV            0x80000000

/* Descriptors: 16 bytes each, rings of RDLEN/TDLEN bytes. */
#define E1000_DESC_SIZE         16

/* Receive descriptor: addr (8), length (2), csum (2), status, errors, special (2). */
#define E1000_RXD_STAT_DD       0x01
#define E1000_RXD_STAT_EOP      0x02
#define E1000_RXD_STAT_IXSM     0x04
#define E1000_RXD_STAT_VP       0x08

/*
 * Transmit descriptors. Legacy: addr (8), length (2), cso, cmd, status,
 * css, special (2). Context (DEXT, DTYP 0): ipcss, ipcso, ipcse (2),
 * tucss, tucso, tucse (2), paylen:20 dtyp:4 tucmd:8, status, hdrlen,
 * mss (2). Data (DEXT, DTYP 1): addr (8), length:20 dtyp:4 dcmd:8,
 * status, popts, special (2).
 */
#define E1000_TXD_CMD_EOP       0x01000000
#define E1000_TXD_CMD_IFCS      0x02000000
#define E1000_TXD_CMD_IC        0x04000000  /* legacy: insert checksum */
#define E1000_TXD_CMD_TSE       0x04000000  /* data: TCP segmentation */
#define E1000_TXD_CMD_RS        0x08000000
#define E1000_TXD_CMD_RPS       0x10000000
#define E1000_TXD_CMD_DEXT      0x20000000
#define E1000_TXD_CMD_VLE       0x40000000
#define E1000_TXD_CMD_IDE       0x80000000
#define E1000_TXD_DTYP_D        0x00100000
#define E1000_TXD_CMD_TCP       0x01000000  /* context: TUCMD */
#define E1000_TXD_CMD_IP        0x02000000
#define E1000_TXD_STAT_DD       0x01
#define E1000_TXD_POPTS_IXSM    0x01
#define E1000_TXD_POPTS_TXSM    0x02

/* PHY registers through MDIC (PHY address 1). */
#define E1000_PHY_ADDR          1
#define MII_BMCR                0x00
#define MII_BMSR                0x01
#define MII_PHYID1              0x02
#define MII_PHYID2              0x03
#define MII_ANAR                0x04
#define MII_ANLPAR              0x05
#define MII_ANER                0x06
#define MII_CTRL1000            0x09
#define MII_STAT1000            0x0a
#define M88_PHY_SPEC_CTRL       0x10
#define M88_PHY_SPEC_STATUS     0x11
#define M88_EXT_PHY_SPEC_CTRL   0x14
#define M88_RX_ERR_CNTR         0x15
#define E1000_PHY_REGS          0x20

#define MII_BMCR_ANRESTART      0x0200
#define MII_BMCR_AUTOEN         0x1000
#define MII_BMCR_LOOPBACK       0x4000
#define MII_BMCR_RESET          0x8000
#define MII_BMSR_LINK_ST        0x0004
#define MII_BMSR_AN_COMP        0x0020
#define MII_ANLPAR_ACK          0x4000

/* EEPROM: 64 words, Microwire READ opcode 110b, checksum word 0x3f. */
#define E1000_EEPROM_WORDS      64
#define E1000_EEPROM_CHECKSUM   0x3f
#define E1000_EEPROM_SUM        0xbaba
#define E1000_EEPROM_READ_OP    6

#endif
