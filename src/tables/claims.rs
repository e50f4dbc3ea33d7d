//! The numbers others published about puzzles we search, each with its source: what
//! `results/published.md` sets our reports beside (in `published.rs`). The counts are
//! copied as their sources print them, one list per run, so this file is long by its data
//! alone.

use Claim::*;

/// What a source published about one of our runs.
pub(super) enum Claim {
    /// The positions at every distance.
    Levels(&'static [u64]),
    /// The positions at the first distances (a table cut short, or a search stopped early).
    First(&'static [u64]),
    /// The diameter: the farthest any position lies from the start.
    Diameter(u64),
    /// The Towers of Hanoi: the distance from the start (every disc on the first peg) to every
    /// disc on another peg, read from the report where those towers are among its antipodes.
    Tower(u64),
}

/// (our folder, the source, what it published).
pub(super) const PUBLISHED: &[(&str, &str, Claim)] = &[
    (
        "topspin-n12-k4-lrf",
        CAYLEYPY,
        Levels(&[
            1, 3, 6, 12, 24, 48, 95, 188, 373, 737, 1449, 2851, 5599, 10945, 21323, 41348, 79325,
            151021, 285576, 535014, 991289, 1816126, 3277994, 5805760, 10030016, 16761135,
            26779190, 40326341, 56177720, 70685978, 77836140, 72055787, 53234670, 29234710,
            10640109, 2066922, 143807, 1960, 8,
        ]),
    ),
    (
        "topspin-n13-k4-lrf",
        CAYLEYPY,
        Levels(&[
            1, 3, 6, 12, 24, 48, 96, 190, 378, 749, 1475, 2907, 5727, 11226, 21959, 42834, 82889,
            159479, 305078, 578974, 1090974, 2042963, 3789560, 6958004, 12594418, 22437431,
            39129192, 66379769, 108681750, 170016014, 250870067, 343815335, 429247123, 476702678,
            456442062, 362227516, 225928936, 101979928, 28370155, 3490525, 101707, 238,
        ]),
    ),
    (
        "topspin-n14-k4-lrf",
        CAYLEYPY,
        Levels(&[
            1,
            3,
            6,
            12,
            24,
            48,
            96,
            191,
            380,
            754,
            1489,
            2943,
            5813,
            11432,
            22426,
            43904,
            85372,
            165170,
            317764,
            607957,
            1157512,
            2195180,
            4140894,
            7771938,
            14507535,
            26929373,
            49643198,
            90799337,
            164557042,
            294757686,
            520131832,
            900768296,
            1523615723,
            2500725527,
            3948709317,
            5933399606,
            8368716920,
            10890884810,
            12797035306,
            13205873933,
            11548086801,
            8159329572,
            4344330490,
            1553516190,
            303033704,
            22090201,
            317234,
            258,
        ]),
    ),
    (
        "pancake-n8",
        CAYLEYPY,
        Levels(&[1, 7, 42, 251, 1191, 4281, 10561, 15011, 8520, 455]),
    ),
    (
        "pancake-n10",
        CAYLEYPY,
        Levels(&[
            1, 9, 72, 575, 3963, 22825, 106461, 377863, 919365, 1309756, 814678, 73232,
        ]),
    ),
    (
        "pancake-n11",
        CAYLEYPY,
        Levels(&[
            1, 10, 90, 809, 6429, 43891, 252737, 1174766, 4126515, 9981073, 14250471, 9123648,
            956354, 6,
        ]),
    ),
    (
        "pancake-n12",
        CAYLEYPY,
        Levels(&[
            1, 11, 110, 1099, 9883, 77937, 533397, 3064788, 14141929, 49337252, 118420043,
            169332213, 111050066, 13032704, 167,
        ]),
    ),
    (
        "pancake-n13",
        CAYLEYPY,
        Levels(&[
            1, 12, 132, 1451, 14556, 130096, 1030505, 7046318, 40309555, 184992275, 639783475,
            1525125357, 2183056566, 1458653648, 186874852, 2001,
        ]),
    ),
    (
        "pancake-n14",
        CAYLEYPY,
        Levels(&[
            1,
            13,
            156,
            1871,
            20703,
            206681,
            1858149,
            14721545,
            100464346,
            572626637,
            2609061935,
            8950336881,
            21189628403,
            30330792508,
            20584311501,
            2824234896,
            24974,
        ]),
    ),
    (
        "pancake-n7-burnt",
        CAYLEYPY,
        Levels(&[
            1, 7, 42, 252, 1386, 6230, 24024, 71568, 159326, 222995, 136301, 21951, 1021, 15, 1,
        ]),
    ),
    (
        "pancake-n8-burnt",
        CAYLEYPY,
        Levels(&[
            1, 8, 56, 392, 2548, 14056, 68656, 276136, 901970, 2195663, 3531887, 2743477, 562095,
            24627, 347, 1,
        ]),
    ),
    (
        "pancake-n9-burnt",
        CAYLEYPY,
        Levels(&[
            1, 9, 72, 576, 4320, 28224, 166740, 843822, 3636954, 12675375, 33773653, 60758618,
            57953163, 15244962, 701298, 6721, 51, 1,
        ]),
    ),
    (
        "perm-n9-09fc80-directed",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 5, 8, 13, 21, 34, 55, 88, 141, 221, 332, 479, 671, 923, 1253, 1681, 2235,
            2948, 3859, 5010, 6420, 8074, 9939, 12008, 14281, 16727, 19268, 21785, 24173, 26209,
            27523, 27766, 27003, 25493, 23053, 19472, 14997, 10111, 5624, 2259, 574, 108, 28, 2,
        ]),
    ),
    ("perm-n9-09fc80-directed", OEIS_A039745, Diameter(45)),
    (
        "perm-n10-0fc399-directed",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 143, 230, 364, 556, 817, 1162, 1616, 2214, 3001,
            4032, 5381, 7141, 9430, 12402, 16227, 21054, 26973, 34016, 42208, 51628, 62390, 74591,
            88312, 103617, 120479, 138566, 157000, 174461, 190050, 203804, 215904, 225908, 232431,
            233633, 228261, 215663, 195505, 168235, 135391, 99605, 64890, 35925, 16203, 5628, 1296,
            175, 39, 11, 1,
        ]),
    ),
    ("perm-n10-0fc399-directed", OEIS_A039745, Diameter(58)),
    (
        "perm-n11-85b049-directed",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 232, 374, 596, 923, 1378, 1988, 2795, 3860,
            5266, 7121, 9563, 12775, 16993, 22523, 29769, 39239, 51518, 67186, 86740, 110567,
            139006, 172491, 211658, 257329, 310479, 372223, 443790, 526455, 621284, 728791, 848554,
            978969, 1117809, 1263275, 1414376, 1569820, 1726427, 1878807, 2020305, 2143517,
            2240794, 2303183, 2319126, 2276744, 2170460, 2007295, 1803501, 1570497, 1308806,
            1024042, 738094, 478420, 269328, 126005, 46507, 13207, 2891, 580, 138, 34, 2,
        ]),
    ),
    ("perm-n11-85b049-directed", OEIS_A039745, Diameter(71)),
    (
        "perm-n12-7d51cc-directed",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 376, 607, 972, 1522, 2306, 3374, 4797,
            6680, 9169, 12459, 16806, 22543, 30110, 40081, 53207, 70481, 93192, 122947, 161604,
            211130, 273421, 350197, 443124, 554133, 685777, 841460, 1025489, 1243060, 1500253,
            1804087, 2162576, 2584515, 3078964, 3654310, 4316949, 5070198, 5914172, 6847330,
            7868766, 8978699, 10176348, 11457699, 12815394, 14238728, 15711204, 17204023, 18666000,
            20019666, 21177161, 22076841, 22713750, 23128416, 23357135, 23382464, 23122023,
            22476333, 21388679, 19854126, 17903628, 15596156, 13022930, 10319342, 7661992, 5242006,
            3233947, 1750471, 808272, 308980, 95025, 24368, 4832, 942, 205, 49, 13, 1,
        ]),
    ),
    ("perm-n12-7d51cc-directed", OEIS_A039745, Diameter(87)),
    (
        "perm-n13-3a04c7-directed",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 609, 984, 1581, 2497, 3833, 5688,
            8184, 11499, 15887, 21692, 29371, 39526, 52947, 70677, 94085, 124970, 165710, 219429,
            290144, 382797, 503135, 657420, 852050, 1093327, 1387676, 1742419, 2166842, 2673090,
            3276739, 3997082, 4857331, 5885016, 7112651, 8578509, 10326940, 12407745, 14874185,
            17779536, 21172696, 25094320, 29575807, 34642464, 40319707, 46639061, 53640294,
            61369640, 69878033, 79219867, 89447804, 100600466, 112682761, 125643257, 139356902,
            153621347, 168183931, 182805270, 197318307, 211626905, 225632289, 239128497, 251743421,
            262963606, 272214735, 278948531, 282666343, 282864640, 278983775, 270498694, 257103859,
            238871747, 216404000, 190913761, 163857592, 136340523, 109059287, 82851613, 58971633,
            38727380, 23027854, 12117906, 5505115, 2116872, 690533, 197328, 50286, 11727, 2772,
            654, 158, 40, 2,
        ]),
    ),
    ("perm-n13-3a04c7-directed", OEIS_A039745, Diameter(103)),
    (
        "perm-n16-5dcd58-start-12e61b",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 4, 6, 8, 10, 14, 17, 21, 29, 35, 42, 56, 69, 91, 117, 137, 175, 202, 245, 287,
            317, 371, 427, 450, 510, 543, 568, 607, 630, 633, 660, 650, 640, 633, 607, 577, 537,
            475, 432, 361, 278, 226, 114, 47, 6,
        ]),
    ),
    (
        "perm-n16-5dcd58-start-f84655",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 4, 6, 11, 18, 27, 41, 63, 97, 145, 209, 303, 416, 564, 708, 824, 900, 912,
            921, 869, 817, 723, 603, 598, 504, 440, 376, 297, 289, 218, 185, 182, 100, 101, 108,
            54, 55, 58, 23, 26, 27, 9, 10, 11, 4, 4, 4,
        ]),
    ),
    (
        "perm-n16-c590c1-start-12e61b",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 5, 9, 14, 27, 44, 63, 91, 138, 214, 295, 407, 567, 736, 942, 1200, 1410, 1482,
            1423, 1310, 1045, 676, 409, 237, 83, 25, 12,
        ]),
    ),
    (
        "perm-n16-c590c1-start-f84655",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 6, 10, 15, 21, 33, 58, 94, 154, 224, 306, 396, 528, 720, 992, 1160, 1225,
            1245, 1334, 1238, 1014, 746, 572, 403, 199, 102, 55, 14,
        ]),
    ),
    (
        "perm-n32-781768-start-2a34f8",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 4, 6, 8, 10, 14, 17, 21, 28, 32, 40, 50, 57, 71, 84, 96, 119, 139, 163, 202,
            237, 286, 352, 416, 510, 627, 754, 929, 1137, 1368, 1682, 2033, 2450, 2977, 3575, 4276,
            5143, 6115, 7267, 8628, 10169, 11970, 14079, 16428, 19149, 22301, 25763, 29794, 34325,
            39308, 45070, 51431, 58446, 66464, 75231, 84816, 95832, 107460, 120514, 135100, 150416,
            167703, 186728, 206503, 229138, 253298, 278662, 307534, 337906, 369803, 406155, 443544,
            483376, 528131, 573746, 622642, 676993, 731677, 791285, 855856, 920991, 992498,
            1068179, 1144680, 1229650, 1316535, 1405986, 1505286, 1603810, 1707056, 1821759,
            1931535, 2050034, 2180244, 2301260, 2435389, 2581447, 2712824, 2863357, 3024633,
            3165715, 3332154, 3508166, 3657236, 3839490, 4028635, 4184120, 4380677, 4581395,
            4740750, 4950565, 5159913, 5320806, 5541082, 5756185, 5915605, 6143865, 6360669,
            6515729, 6747734, 6962244, 7109574, 7341283, 7548547, 7684905, 7910471, 8106078,
            8227843, 8442014, 8620748, 8724201, 8920094, 9077597, 9158952, 9330779, 9461988,
            9517271, 9658086, 9758832, 9784170, 9888432, 9954283, 9946052, 10007876, 10035224,
            9990193, 10005281, 9990251, 9905398, 9868939, 9808285, 9681604, 9591148, 9482824,
            9312474, 9166056, 9007348, 8793098, 8588503, 8378095, 8118183, 7855764, 7591702,
            7288884, 6968422, 6652560, 6305029, 5924307, 5552017, 5156615, 4721298, 4293797,
            3855440, 3356201, 2864582, 2380066, 1846348, 1366121, 949055, 539109, 267330, 111456,
            20981, 3721, 42,
        ]),
    ),
    (
        "perm-n32-ecee11-start-2a34f8",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 5, 9, 14, 26, 41, 60, 87, 135, 208, 281, 387, 541, 736, 969, 1295, 1720, 2278,
            2975, 3945, 5211, 6975, 9336, 12591, 17118, 23496, 32356, 44771, 62184, 86255, 118785,
            162810, 221814, 300451, 403719, 538576, 713052, 935264, 1217048, 1569685, 2004506,
            2535602, 3172090, 3926342, 4805713, 5820367, 6975465, 8270724, 9702311, 11266116,
            12949317, 14729653, 16591597, 18524977, 20482448, 22406797, 24277900, 26069619,
            27713750, 29122703, 30261049, 31069056, 31479754, 31441167, 30881255, 29760269,
            28051788, 25698172, 22679861, 19034689, 14997898, 10961150, 7378045, 4554048, 2575526,
            1332739, 633576, 274839, 108903, 40675, 14389, 4488, 1356, 389, 76, 11, 7, 2, 1,
        ]),
    ),
    (
        "perm-n32-ecee11-start-3d2c06",
        CAYLEYPY,
        Levels(&[
            1, 2, 3, 6, 10, 15, 21, 33, 58, 102, 172, 259, 379, 567, 893, 1390, 2188, 3389, 5172,
            7811, 11954, 18270, 27803, 42283, 64271, 97163, 146546, 220228, 329830, 491288, 726596,
            1066157, 1549257, 2225099, 3152936, 4399915, 6037067, 8135862, 10760571, 13928551,
            17585301, 21640960, 25940148, 30216964, 34114147, 37215496, 39197095, 39880215,
            39271382, 37504690, 34745403, 31317817, 27600890, 23819823, 20176926, 16846146,
            13887816, 11344560, 9230650, 7475078, 6032903, 4861092, 3908911, 3129785, 2489738,
            1968205, 1542864, 1196766, 913746, 689067, 515996, 381932, 280829, 204273, 146963,
            105560, 75973, 54294, 37795, 26317, 17951, 12177, 8270, 5369, 3309, 1994, 1217, 655,
            356, 214, 126, 66, 30, 14, 4, 4,
        ]),
    ),
    (
        "perm-n11-85b049",
        CAYLEYPY,
        Levels(&[
            1, 3, 6, 12, 24, 48, 89, 166, 309, 560, 1001, 1776, 3097, 5314, 8937, 14618, 23293,
            36288, 55172, 81871, 118838, 169112, 235115, 319961, 427229, 559464, 716979, 903686,
            1116773, 1352909, 1609076, 1880395, 2148532, 2408704, 2650204, 2844421, 2980448,
            3049721, 3017424, 2878200, 2626374, 2235627, 1702643, 1044515, 475424, 155851, 42082,
            10262, 2835, 937, 328, 100, 32, 10, 3, 1,
        ]),
    ),
    (
        "perm-n14-49a47d",
        CAYLEYPY,
        Levels(&[
            1, 3, 6, 12, 24, 48, 91, 171, 321, 589, 1075, 1950, 3491, 6210, 10986, 19263, 33514,
            57769, 98159, 163941, 269338, 435449, 691859, 1080005, 1659436, 2512942, 3746333,
            5498978, 7963527, 11386406, 16058844, 22353988, 30759714, 41839872, 56238352, 74757850,
            98340264, 127996579, 164875626, 210268514, 265518647, 332061277, 411414715, 504958674,
            614075484, 740272276, 884534812, 1047413235, 1229737728, 1431700846, 1652211880,
            1890258403, 2144499030, 2411711632, 2688028475, 2969737924, 3251282972, 3525714941,
            3786625399, 4026316754, 4235611752, 4406074739, 4529134791, 4595116230, 4595217203,
            4521988761, 4367186737, 4123660173, 3785800928, 3347488055, 2805032872, 2167875057,
            1486173810, 866316389, 416461908, 164327289, 54789051, 16347103, 4650644, 1305284,
            367812, 107719, 34044, 11050, 3538, 1133, 379, 110, 25, 6, 3, 1,
        ]),
    ),
    ("pancake-n8", OEIS_A058986, Diameter(9)),
    ("pancake-n10", OEIS_A058986, Diameter(11)),
    ("pancake-n11", OEIS_A058986, Diameter(13)),
    ("pancake-n12", OEIS_A058986, Diameter(14)),
    ("pancake-n13", OEIS_A058986, Diameter(15)),
    ("pancake-n14", OEIS_A058986, Diameter(16)),
    ("pancake-n7-burnt", OEIS_A078941, Diameter(14)),
    ("pancake-n8-burnt", OEIS_A078941, Diameter(15)),
    ("pancake-n9-burnt", OEIS_A078941, Diameter(17)),
    ("pancake-n10-burnt", OEIS_A078941, Diameter(18)),
    ("pancake-n11-burnt", OEIS_A078941, Diameter(19)),
    ("hanoi-p3-d10", LUCAS, Diameter(1023)),
    ("hanoi-p3-d15", LUCAS, Diameter(32767)),
    ("hanoi-p4-d10", KORF, Diameter(49)),
    ("hanoi-p4-d14", KORF, Diameter(113)),
    ("hanoi-p4-d18", KORF, Diameter(225)),
    (
        "hanoi-p4-d18",
        PUZZLE_SEARCH,
        First(&[
            1, 3, 6, 12, 30, 30, 66, 96, 126, 210, 330, 318, 462, 816, 1032, 936, 1044, 1752, 2610,
            3036, 3528, 3306, 4578, 6318, 9108, 10674, 11580, 11844, 13374, 17124, 23664, 32184,
            36984, 39822, 38544, 39936, 45936, 57990, 77262, 96366, 116052, 127092, 122142, 112086,
            116814, 135078, 157326, 192498, 246468, 304650, 354018, 388128, 415206, 427710, 411804,
            402504, 451236, 521094, 600684, 714750, 883602, 1064970, 1228656, 1349322, 1464336,
            1539426, 1565634, 1554408, 1610640, 1703436, 1890282, 2144742, 2533656, 2988834,
            3506376, 4017900, 4551204, 4999416, 5378250, 5623770, 5778096, 5794866, 5857608,
            6013998, 6447654, 7084050, 7998492, 9102018, 10433148, 11919366, 13440804, 14761050,
            16074066, 17531574, 18802386, 19692462, 19862262, 19671618, 19386408, 19539486,
            20568270, 22353276, 24582186, 27002898, 29769948, 32947008, 36487218, 40325658,
            44952132, 49926018, 54298296, 57553218, 59394084, 60022518, 59865438, 60725514,
            63215988, 65922816, 68038434, 69284418, 70569216,
        ]),
    ),
    ("symmetry/hanoi-p5-d14-sym", OEIS_A007665, Tower(63)),
    ("symmetry/hanoi-p5-d15-sym", OEIS_A007665, Tower(71)),
    ("symmetry/hanoi-p5-d16-sym", OEIS_A007665, Tower(79)),
    ("sliding-2x3", OEIS_A090034, Levels(A090034_COUNTS)),
    ("sliding-3x2", OEIS_A090034, Levels(A090034_COUNTS)),
    (
        "sliding-2x4",
        OEIS_A090035,
        Levels(&[
            1, 2, 3, 6, 10, 14, 19, 28, 42, 61, 85, 119, 161, 215, 293, 396, 506, 632, 788, 985,
            1194, 1414, 1664, 1884, 1999, 1958, 1770, 1463, 1076, 667, 361, 190, 88, 39, 19, 7, 1,
        ]),
    ),
    (
        "sliding-3x3",
        OEIS_A089473,
        Levels(&[
            1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638,
            9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
        ]),
    ),
    (
        "sliding-2x5",
        OEIS_A090036,
        Levels(&[
            1, 2, 3, 6, 11, 19, 30, 44, 68, 112, 176, 271, 411, 602, 851, 1232, 1783, 2530, 3567,
            4996, 6838, 9279, 12463, 16597, 21848, 28227, 35682, 44464, 54597, 65966, 78433, 91725,
            104896, 116966, 126335, 131998, 133107, 128720, 119332, 106335, 91545, 75742, 60119,
            45840, 33422, 23223, 15140, 9094, 5073, 2605, 1224, 528, 225, 75, 20, 2,
        ]),
    ),
    ("sliding-3x4", OEIS_A090166, Levels(A090166_COUNTS)),
    ("sliding-4x3", OEIS_A090166, Levels(A090166_COUNTS)),
    (
        "sliding-2x6",
        OEIS_A090167,
        First(&[
            1, 2, 3, 6, 11, 20, 36, 60, 95, 155, 258, 426, 688, 1106, 1723, 2615, 3901, 5885, 8851,
            13205, 19508, 28593, 41179, 58899, 83582, 118109, 165136, 228596, 312542, 423797,
            568233, 755727, 994641, 1296097, 1667002, 2119476, 2660415, 3300586, 4038877,
        ]),
    ),
    ("sliding-2x6", OEIS_A151943, Diameter(80)),
    (
        "sliding-2x7",
        OEIS_A346736,
        First(&[
            1, 2, 3, 6, 11, 20, 37, 67, 117, 198, 329, 557, 942, 1575, 2597, 4241, 6724, 10535,
            16396, 25515, 39362, 60532, 92089, 138969, 207274, 307725, 453000, 664240, 964874,
            1392975, 1992353, 2832063, 3988528, 5586275, 7756511, 10698721, 14621717, 19840724,
            26676629,
        ]),
    ),
    ("sliding-2x7", OEIS_A151943, Diameter(108)),
    (
        "perm-cube-2x2x2-67a454-htm",
        OEIS_A079761,
        Levels(&[
            1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644,
        ]),
    ),
    (
        "perm-cube-2x2x2-67a454-qtm",
        OEIS_A079762,
        Levels(&[
            1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536, 90280,
            276,
        ]),
    ),
];

/// OEIS A090034: a board and its transpose count alike.
const A090034_COUNTS: &[u64] = &[
    1, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1,
];

/// OEIS A090166: a board and its transpose count alike.
const A090166_COUNTS: &[u64] = &[
    1, 2, 4, 9, 20, 37, 63, 122, 232, 431, 781, 1392, 2494, 4442, 7854, 13899, 24215, 41802, 71167,
    119888, 198363, 323206, 515778, 811000, 1248011, 1885279, 2782396, 4009722, 5621354, 7647872,
    10065800, 12760413, 15570786, 18171606, 20299876, 21587248, 21841159, 20906905, 18899357,
    16058335, 12772603, 9515217, 6583181, 4242753, 2503873, 1350268, 643245, 270303, 92311, 27116,
    5390, 1115, 86, 18,
];

/// The sources, as they are named in the table.
const CAYLEYPY: &str = "CayleyPy";
const LUCAS: &str = "Lucas";
const KORF: &str = "Korf";
const PUZZLE_SEARCH: &str = "PuzzleSearch";
const OEIS_A090034: &str = "OEIS A090034";
const OEIS_A090035: &str = "OEIS A090035";
const OEIS_A089473: &str = "OEIS A089473";
const OEIS_A090036: &str = "OEIS A090036";
const OEIS_A090166: &str = "OEIS A090166";
const OEIS_A090167: &str = "OEIS A090167";
const OEIS_A346736: &str = "OEIS A346736";
const OEIS_A151943: &str = "OEIS A151943";
const OEIS_A058986: &str = "OEIS A058986";
const OEIS_A078941: &str = "OEIS A078941";
const OEIS_A007665: &str = "OEIS A007665";
const OEIS_A079761: &str = "OEIS A079761";
const OEIS_A079762: &str = "OEIS A079762";
const OEIS_A039745: &str = "OEIS A039745";

/// The sources, as the footnotes of `published.md`.
pub(super) const SOURCES: &[(&str, &str)] = &[
    (
        CAYLEYPY,
        "Chervov, Fedoriaka, Konstantinova et al., \"CayleyPy Growth: Efficient growth computations and hundreds of new conjectures on Cayley graphs\" (arXiv 2509.19162), data files of the cayleypy/cayleypy repository: `cayleypy/data/top_spin_cayley_growth.csv` (the n = 14 row added in commit a2529069), `pancake_cayley_growth.csv` and `burnt_pancake_cayley_growth.csv` (commit 3696b1c7). Their TopSpin has the shifts left and right and the reversal of the first 4 pieces, each one move, searched from the identity: our lrf metric with k = 4. Their pancakes are the prefix reversals (of 2 to n; burnt: of 1 to n, each turning the pancakes it moves), from the sorted stack. Their LX (`lx_cayley_growth.csv`, commit a0fdecd4) is the directed Cayley graph of the left shift and the swap of the first two, without the right shift: our perm puzzle of the generators (1,...,n) and (1,2), one way only (the metric directed). Their coset growth tables (`lrx_coset_growth.csv`, commit d0452df7; `top_spin_coset_growth.csv`, commit 317f87b0) search LRX and TopSpin from a binary string (a block of zeros then ones, or zeros and ones alternating), the orbit of that string: our perm puzzle of the generators (1,...,n) and (1,2), or (1,...,n) and (1,4)(2,3), with that string as `start`. Their LRX (`lrx_cayley_growth.csv`) is the Cayley graph of the left and right shifts and the swap of the first two: our perm puzzle of the generators (1,...,n) and (1,2), each with its inverse (the metric gens).",
    ),
    (
        "OEIS A058986, A078941",
        "The On-Line Encyclopedia of Integer Sequences: the pancake numbers (A058986, the most flips that sorting any stack of n pancakes needs; its data section holds n = 1 to 19) and the burnt pancake numbers (A078941, the same with every pancake to end burnt side down; n = 1 to 12, after Cohen and Blum, \"On the problem of sorting burnt pancakes\", 1995, and Cibulka).",
    ),
    (
        LUCAS,
        "Lucas (1883): with 3 pegs the tower of N discs takes 2^N - 1 moves, and no position lies farther from a perfect state (the 3-peg graph is a Sierpinski triangle with the perfect states at its corners).",
    ),
    (
        KORF,
        "OEIS A382111, the largest distance from all discs on one of 4 pegs, its values for 1 to 20 discs from Korf, \"Best-first frontier search with delayed duplicate detection\" (AAAI 2004), table 2. Up to 14 discs and at 18 they equal the Frame-Stewart numbers (A007664); at 15 and 20 they exceed them.",
    ),
    (
        PUZZLE_SEARCH,
        "lightln2/PuzzleSearch (GPU and disk breadth-first search), its test `HanoiSearchTests.Search18` in `HanoiTowersTests/HanoiSearchTests.cpp` at commit ddd4158b (August 2023): the positions at distances 0 to 120 from all 18 discs on the first of 4 pegs.",
    ),
    (
        OEIS_A007665,
        "The On-Line Encyclopedia of Integer Sequences: the Frame-Stewart numbers for 5 pegs (the moves Frame's and Stewart's algorithms take to carry n discs to another peg; the 5-peg row of A137695), after Brousseau (1975) and Wood (1981). OEIS notes that no proof of their optimality is known; our exhaustive searches show they are optimal for 14 to 16 discs. Our runs are reduced by the 24 exchanges of the other pegs (in `symmetry/`); the towers' distance is read off a report where they are among its antipodes.",
    ),
    (
        OEIS_A039745,
        "The On-Line Encyclopedia of Integer Sequences: the diameter of the symmetric group S_n generated by (1,2) and (1,2,...,n), taken one way only (the directed Cayley graph; A186783 is the undirected one), n = 1 to 15 (n = 12 and 13 by Whitmore, 2020; 14 and 15 by Fedoriaka, 2025).",
    ),
    (
        "OEIS A079761, A079762",
        "The On-Line Encyclopedia of Integer Sequences: the positions of the 2x2x2 cube at each distance from the start, 3,674,160 in all, a half turn one move (A079761) or two (A079762, the quarter-turn metric), after Hofstadter (Metamagical Themas, 1985) and Longridge. Our definition holds one corner fixed and turns U, R and F, the same graph.",
    ),
    (
        "OEIS A090034, A090035, A090036, A089473, A090166, A090167, A346736",
        "The On-Line Encyclopedia of Integer Sequences: the configurations of the 3x2, 4x2, 5x2, 3x3 (the 8-puzzle), 4x3, 6x2 and 7x2 sliding puzzles at each number of moves from the tiles in order with the blank in a corner (Karlemo and Östergård; Reinefeld 1993 for the 8-puzzle; Hordern); a board and its transpose count alike. A090167's and A346736's data sections hold their first 39 terms (their b-files, the rest, are not in the copy read); A151943 their largest distances, 80 and 108.",
    ),
];

/// Runs with no published table to set beside them.
pub(super) const NOTES: &str = "The 2x6 and 2x7 sliding boards past distance 38: OEIS holds the rest of their counts only in\n\
b-files not in the copy read. 2x7 ([sliding-2x7](sliding-2x7/report.md), 14!/2 =\n\
43,589,145,600 positions) had its levels 0 to 53 from the search state by state and 54 to 108\n\
from the block-move sweeps of odd-width boards (the same run going on from its checkpoint with\n\
the sweeps' build); both ways agree with a plain BFS and OEIS on the smaller boards, and on 4x3\n\
give the same file.\n";
